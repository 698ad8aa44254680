// pmukit -- the journal of original register values: its text, strictly parsed, and its file.
#include "pmukit/pmu/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <map>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/util/confined_root.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit::pmu {

namespace {

constexpr std::string_view kMagic = "pmukit-journal";
// A journal holds the registers of the units of one run: far fewer than this many lines.
constexpr std::size_t kMaxJournalBytes = 16u << 20;

// Appends one register's line to `out`, formatted in place: a session journals every register
// it owns (2,300 on gnr-2s with 500 counters), and a string per line was most of the cost.
void append_entry_line(std::string& out, const JournalEntry& e) {
  const Reg& r = e.reg;
  auto to = std::back_inserter(out);
  if (const auto* m = std::get_if<MsrAddress>(&r.at))
    fmt::format_to(to, FMT_COMPILE("msr {} {:#x} {} {:#x}\n"), m->cpu, m->msr, r.width, e.value);
  else if (const auto* mm = std::get_if<MmioAddress>(&r.at))
    fmt::format_to(to, FMT_COMPILE("mmio {:#x} {} {:#x}\n"), mm->phys, r.width, e.value);
  else {
    const auto& c = std::get<ConfigAddress>(r.at);
    fmt::format_to(to, FMT_COMPILE("pci {} {:#x} {} {:#x}\n"), c.bdf.str(), c.offset, r.width, e.value);
  }
}

// One line's words, and where they are, for errors.
class LineReader {
 public:
  LineReader(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  // The next line split on single spaces; throws when the text ended.
  std::vector<std::string_view> next(std::string_view expected) {
    if (at_ >= text_.size()) fail(fmt::format("the journal ends early: expected {}", expected), line_ + 1);
    std::size_t nl = text_.find('\n', at_);
    if (nl == std::string_view::npos) fail("the last line has no newline (a truncated journal)", line_ + 1);
    std::string_view line = text_.substr(at_, nl - at_);
    at_ = nl + 1;
    ++line_;
    return split(line, ' ');
  }
  bool done() const { return at_ >= text_.size(); }
  std::size_t line() const { return line_; }
  [[noreturn]] void fail(const std::string& what, std::size_t line = 0) const {
    throw Error(fmt::format("{}:{}: {}", name_, line ? line : line_, what));
  }
  // A "0x..." hex number, a decimal one, or an error naming the field.
  std::uint64_t hex(std::string_view word, std::string_view field) const {
    if (word.size() > 2 && word.substr(0, 2) == "0x")
      if (auto v = parse_hex(word.substr(2))) return *v;
    fail(fmt::format("{} '{}' is not a 0x-prefixed hexadecimal number", field, word));
  }
  std::uint64_t dec(std::string_view word, std::string_view field, std::uint64_t max) const {
    auto v = !word.empty() && word.find_first_not_of("0123456789") == std::string_view::npos ? parse_u64(word)
                                                                                             : std::nullopt;
    if (!v || *v > max) fail(fmt::format("{} '{}' is not a decimal number up to {}", field, word, max));
    return *v;
  }

 private:
  std::string_view text_;
  const std::string& name_;
  std::size_t at_ = 0, line_ = 0;
};

std::uint8_t width_of(const LineReader& in, std::string_view word, bool msr) {
  auto w = in.dec(word, "width", 64);
  if (w != 32 && w != 64) in.fail(fmt::format("width '{}' is neither 32 nor 64", word));
  if (msr && w != 64) in.fail("an MSR is 64 bits wide");
  return static_cast<std::uint8_t>(w);
}

JournalEntry parse_entry(const LineReader& in, const std::vector<std::string_view>& w) {
  const std::size_t want = w.empty() ? 0 : w[0] == "mmio" ? 4 : 5;
  if (w.empty() || (w[0] != "msr" && w[0] != "mmio" && w[0] != "pci"))
    in.fail("expected a register: 'msr CPU MSR WIDTH VALUE', 'mmio ADDRESS WIDTH VALUE' or 'pci BDF OFFSET WIDTH "
            "VALUE'");
  if (w.size() != want) in.fail(fmt::format("a '{}' register has {} fields, this line {}", w[0], want, w.size()));
  JournalEntry e;
  if (w[0] == "msr") {
    auto cpu = static_cast<int>(in.dec(w[1], "CPU", limits::kCpus - 1));
    auto number = in.hex(w[2], "MSR");
    if (number > 0xffffffffull) in.fail(fmt::format("MSR '{}' is beyond 32 bits", w[2]));
    width_of(in, w[3], true);
    e.reg = msr(cpu, static_cast<std::uint32_t>(number));
  } else if (w[0] == "mmio") {
    e.reg = Reg{MmioAddress{in.hex(w[1], "address")}, width_of(in, w[2], false)};
  } else {
    auto bdf = Bdf::parse(w[1]);
    if (!bdf || w[1].size() != 12) in.fail(fmt::format("'{}' is not a PCI address dddd:bb:dd.f", w[1]));
    auto offset = in.hex(w[2], "offset");
    if (offset >= 4096) in.fail(fmt::format("config offset '{}' is beyond 4 KiB", w[2]));
    e.reg = Reg{ConfigAddress{*bdf, static_cast<std::uint32_t>(offset)}, width_of(in, w[3], false)};
  }
  e.value = in.hex(w.back(), "value");
  if (e.reg.width == 32 && e.value > 0xffffffffull) in.fail(fmt::format("value '{}' is wider than 32 bits", w.back()));
  return e;
}

// "KEY VALUE" header lines.
std::string_view header(LineReader& in, std::string_view key) {
  auto w = in.next(fmt::format("'{} ...'", key));
  if (w.size() != 2 || w[0] != key) in.fail(fmt::format("expected '{} ...'", key));
  return w[1];
}

// Version 3 ends with "checksum 0x<16 digits>" over every byte before it: the text before it,
// or an Error when it is missing or does not match.
std::string_view checked_body(std::string_view text, const std::string& name) {
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  if (text.empty() || text.back() != '\n')
    throw Error(fmt::format("{}:{}: the last line has no newline (a truncated journal)", name, lines + 1));
  const std::size_t at = text.rfind('\n', text.size() - 2) + 1;  // npos + 1 = 0: one line
  std::string_view last = text.substr(at, text.size() - at - 1);
  constexpr std::string_view kKey = "checksum 0x";
  auto sum =
      last.starts_with(kKey) && last.size() == kKey.size() + 16 ? parse_hex(last.substr(kKey.size())) : std::nullopt;
  if (!sum)
    throw Error(fmt::format("{}:{}: expected 'checksum 0x<16 hexadecimal digits>' as the last line (a truncated "
                            "journal)",
                            name, lines));
  const std::uint64_t want = journal_checksum(text.substr(0, at));
  if (*sum != want)
    throw Error(fmt::format("{}:{}: checksum {:#018x} does not match the journal's content ({:#018x}): it was changed "
                            "or damaged after pmukit wrote it",
                            name, lines, *sum, want));
  return text.substr(0, at);
}

// The writer's lines: "pid P" alone before version 3, then its identity and lock.
void parse_writer(LineReader& in, std::uint64_t version, JournalWriter& w) {
  w.process.pid = static_cast<long>(in.dec(header(in, "pid"), "pid", 0x7fffffff));
  if (w.process.pid <= 0) in.fail("pid 0 is no process");
  if (version < 3) return;
  w.process.pid_ns = in.dec(header(in, "pidns"), "PID namespace", ~0ull);
  w.process.start_ticks = in.dec(header(in, "start"), "start time", ~0ull);
  auto boot = header(in, "boot");
  if (boot.size() > 64 || boot.find_first_not_of("0123456789abcdef-") != std::string_view::npos)
    in.fail(fmt::format("boot '{}' is not a boot id", boot));
  w.process.boot_id = boot == "-" ? "" : std::string(boot);
  auto program = header(in, "program");
  w.process.program = program == "-" ? "" : sanitize_program_name(program);
  if (program != "-" && w.process.program.empty()) in.fail(fmt::format("program '{}' is not a program name", program));
  auto lock = header(in, "lock");
  const auto colon = lock.find(':');
  if (colon == std::string_view::npos) in.fail(fmt::format("lock '{}' is not DEVICE:INODE", lock));
  w.lock = {in.hex(lock.substr(0, colon), "lock device"), in.hex(lock.substr(colon + 1), "lock inode")};
}

void fsync_dir(const Machine& machine, const std::filesystem::path& dir) {
  auto d = machine.files().open(dir, O_RDONLY | O_DIRECTORY);
  if (!d.fd || ::fsync(d.fd.get()) != 0) throw_errno(fmt::format("{}: fsync", dir.string()), d.fd ? errno : d.err);
}

void write_all(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw_errno(fmt::format("{}: write", path.string()), n < 0 ? errno : EIO);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

std::uint64_t journal_checksum(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64: offset basis and prime
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string format_journal(const Journal& j) {
  const auto& w = j.writer;
  std::string out = fmt::format("{} {}\npid {}\npidns {}\nstart {}\nboot {}\nprogram {}\nlock {:#x}:{:#x}\nroot {}\n"
                                "registers {}\n",
                                kMagic, Journal::kVersion, w.process.pid, w.process.pid_ns, w.process.start_ticks,
                                w.process.boot_id.empty() ? "-" : w.process.boot_id,
                                w.process.program.empty() ? "-" : w.process.program, w.lock.dev, w.lock.ino, j.root,
                                j.entries.size());
  out.reserve(out.size() + 48 * (j.entries.size() + j.undo.size()) + 64);
  for (const auto& e : j.entries) append_entry_line(out, e);
  out += fmt::format("undo {}\n", j.undo.size());
  for (const auto& e : j.undo) append_entry_line(out, e);
  out += "end\n";
  return out + fmt::format("checksum {:#018x}\n", journal_checksum(out));
}

Journal parse_journal(std::string_view text, const std::string& name) {
  LineReader in(text, name);
  auto magic = in.next("the 'pmukit-journal VERSION' line");
  if (magic.size() != 2 || magic[0] != kMagic) in.fail("not a pmukit journal (expected 'pmukit-journal VERSION')");
  const auto version = in.dec(magic[1], "version", 1000);
  if (version < Journal::kOldestVersion || version > Journal::kVersion)
    in.fail(fmt::format("journal version {} is not one this pmukit reads ({} to {})", magic[1], Journal::kOldestVersion,
                        Journal::kVersion));
  if (version >= 3) text = checked_body(text, name);  // everything before the checksum line
  LineReader body(text, name);
  body.next("the 'pmukit-journal VERSION' line");
  Journal j;
  parse_writer(body, version, j.writer);
  auto root = body.next("'root PATH'");
  if (root.size() < 2 || root[0] != "root") body.fail("expected 'root PATH'");
  j.root =
      std::string(text.substr(root[1].data() - text.data(), root.back().data() + root.back().size() - root[1].data()));
  const auto count = body.dec(header(body, "registers"), "register count", kMaxJournalBytes);
  std::map<Address, std::size_t> listed;  // each register once: its line
  for (std::uint64_t i = 0; i < count; ++i) {
    j.entries.push_back(parse_entry(body, body.next("a register line")));
    auto [it, added] = listed.emplace(j.entries.back().reg.at, body.line());
    if (!added)
      body.fail(fmt::format("{} is listed twice (also on line {}): a journal lists each register once",
                            j.entries.back().reg.str(), it->second));
  }
  if (version >= 2) {  // version 1 has no undo writes
    const auto undo = body.dec(header(body, "undo"), "undo write count", kMaxJournalBytes);
    for (std::uint64_t i = 0; i < undo; ++i) j.undo.push_back(parse_entry(body, body.next("an undo write line")));
  }
  auto end = body.next("'end'");
  if (end.size() != 1 || end[0] != "end")
    body.fail(version >= 2 ? "expected 'end' after the undo writes"
                           : fmt::format("expected 'end' after {} registers", count));
  if (!body.done()) body.fail(version >= 3 ? "text between 'end' and the checksum" : "text after 'end'", 0);
  return j;
}

std::filesystem::path journal_path(const Machine& machine, std::string_view unit) {
  auto path = unit_lock_path(machine, unit);
  return path.replace_extension(".journal");
}

std::string journal_unit(const std::filesystem::path& journal) {
  const std::string stem = journal.stem().string();
  std::string unit;
  for (std::size_t i = 0; i < stem.size(); ++i) {  // unit_lock_path's %XX back to the byte
    auto byte =
        stem[i] == '%' && i + 2 < stem.size() ? parse_hex(std::string_view(stem).substr(i + 1, 2)) : std::nullopt;
    unit += byte ? static_cast<char>(*byte) : stem[i];
    if (byte) i += 2;
  }
  return unit;
}

std::vector<std::filesystem::path> journal_files(const Machine& machine) {
  const auto dir = machine.param("units.path");
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".journal") out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

void write_journal(const Machine& machine, const std::filesystem::path& path, const Journal& j) {
  const auto& files = machine.files();
  machine.check_no_links(path);  // a link among its directories could lead the write out of the root
  files.create_directories(path.parent_path());
  auto tmp = path;
  tmp += fmt::format(".{}.tmp", ::getpid());
  auto r = files.open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
  if (!r.fd)
    throw Error(r.err == ELOOP ? fmt::format("{}: a symbolic link: pmukit does not write through links", tmp.string())
                               : files.describe_error(tmp, r.err));
  write_all(r.fd.get(), format_journal(j), tmp);
  if (::fsync(r.fd.get()) != 0) throw_errno(fmt::format("{}: fsync", tmp.string()), errno);
  r.fd = UniqueFd();
  // rename(2) replaces a link at the destination itself, never what it points to.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw_errno(fmt::format("{}: rename to {}", tmp.string(), path.string()), err);
  }
  fsync_dir(machine, path.parent_path());
}

std::optional<Journal> read_journal(const Machine& machine, const std::filesystem::path& path) {
  auto r = machine.files().open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (!r.fd && r.err == ENOENT) return std::nullopt;
  if (!r.fd)
    throw Error(r.err == ELOOP
                    ? fmt::format("{}: a symbolic link: pmukit reads its journal only as a regular file", path.string())
                    : machine.files().describe_error(path, r.err));
  struct stat st {};
  if (::fstat(r.fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: the journal is {}, not a regular file", path.string(), file_type_name(st.st_mode)));
  if (static_cast<std::uint64_t>(st.st_size) > kMaxJournalBytes)
    throw Error(fmt::format("{}: {} bytes: longer than any journal pmukit writes", path.string(), st.st_size));
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  ssize_t n = ::pread(r.fd.get(), text.data(), text.size(), 0);
  if (n < 0) throw_errno(path.string(), errno);
  text.resize(static_cast<std::size_t>(n));
  try {
    return parse_journal(text, path.string());
  } catch (const Error& e) {
    throw Error(fmt::format("{}; nothing restored: {}", e.what(), discard_hint(path)));
  }
}

std::string discard_hint(const std::filesystem::path& journal) {
  return fmt::format("once its registers are known to be right (the machine rebooted, or they were put back by "
                     "hand), 'pmu-raw --discard-journal' sets it aside as {}.discarded",
                     journal.filename().string());
}

bool journal_exists(const Machine& machine) {
  return !journal_files(machine).empty();
}

Discarded discard_journals(const Machine& machine) {
  Discarded out;
  if (!journal_exists(machine)) return out;
  MachineLock lock(machine);
  UnitLocks held(machine);
  for (const auto& path : journal_files(machine)) {
    try {
      held.take(journal_unit(path));  // the writer held it for as long as the journal existed
    } catch (const UnitInUse& e) {
      out.left.push_back(fmt::format("{}: left: {}", path.string(), e.what()));
      continue;
    }
    machine.check_no_links(path);
    auto aside = path;
    aside += ".discarded";
    // rename(2) moves a link itself, never what it points to.
    if (::rename(path.c_str(), aside.c_str()) != 0)
      throw_errno(fmt::format("{}: rename to {}", path.string(), aside.string()), errno);
    fsync_dir(machine, path.parent_path());
    out.aside.emplace_back(path, aside);
  }
  return out;
}

void remove_journal(const Machine& machine, const std::filesystem::path& path) {
  machine.check_no_links(path);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw_errno(fmt::format("{}: remove", path.string()), errno);
  fsync_dir(machine, path.parent_path());
}

std::string Recovered::message() const {
  return fmt::format("restored {} register{} from a run killed before it could restore them ({}pid {})", registers,
                     registers == 1 ? "" : "s", program.empty() ? "" : program + ", ", pid);
}

JournalWriter JournalWriter::self(const LockFileId& lock) {
  return JournalWriter{ProcessIdentity::self(), lock};
}

namespace {
WritePointHook write_point_hook = nullptr;
}

void set_write_point_hook(WritePointHook hook) {
  write_point_hook = hook;
}

void write_point(std::size_t writes_done) {
  if (write_point_hook) write_point_hook(writes_done);
}

}  // namespace pmukit::pmu
