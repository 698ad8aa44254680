// pmukit -- pmu-discover --capture: recording what discovery reads, and copying exactly that.
#include "pmukit/snapshot/capture.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <regex>

#include <fmt/format.h>
#include <fmt/std.h>

#include "capture_writer.h"
#include "pmukit/access/cpuid.h"
#include "pmukit/access/libpci_files.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/register_window.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/open_observer.h"
#include "pmukit/util/text.h"

namespace pmukit::snapshot {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kPage = 4096;
constexpr int kMaxLinks = 40;  // as Linux MAXSYMLINKS

// Files whose contents identify one machine or person: DMI serial numbers, UUIDs and asset tags,
// network MAC addresses. Discovery does not need them; a capture never holds them.
bool is_private(const fs::path& rel) {
  static constexpr std::array kNames = {"product_serial", "board_serial",    "chassis_serial",
                                        "product_uuid",   "board_asset_tag", "chassis_asset_tag",
                                        "serial",         "address",         "perm_addr"};
  const std::string name = rel.filename().string();
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

// /proc/cpuinfo without a "Serial" line (some Arm kernels print the SoC's serial number there).
std::string scrub_cpuinfo(std::string_view text) {
  std::string out;
  for (const auto& line : split(text, '\n')) {
    if (line.starts_with("Serial")) continue;
    out += line;
    out += '\n';
  }
  if (!text.ends_with('\n') && !out.empty()) out.pop_back();
  return out;
}

}  // namespace

CaptureRecorder::CaptureRecorder(const Machine& machine) : machine_(machine) {
  set_open_observer(&machine_.files(), [this](const fs::path& rel, int flags) {
    int kind = kSeen;
    if ((flags & O_PATH) == 0) kind |= (flags & O_DIRECTORY) ? kListed : kRead;
    paths_[rel] |= kind;
  });
  RegisterWindow::set_access_observer(
      [this](const std::string& file, std::uint64_t window, std::uint64_t length, std::uint64_t at) {
        const std::uint64_t page = at & ~(kPage - 1);
        ranges_.emplace(file, std::max(page, window), std::min(page + kPage, window + length));
      });
  MsrDevice::set_read_observer([this](int cpu, std::uint32_t msr) { msrs_.emplace(cpu, msr); });
  set_cpuid_observer([this](int cpu, std::uint32_t leaf, std::uint32_t subleaf, const CpuidRegs& regs) {
    cpuid_[cpu][{leaf, subleaf}] = cpuid_line(leaf, subleaf, regs);
  });
}

CaptureRecorder::~CaptureRecorder() {
  stop();
}

void CaptureRecorder::stop() {
  if (!active_) return;
  active_ = false;
  set_open_observer(nullptr, nullptr);
  RegisterWindow::set_access_observer(nullptr);
  MsrDevice::set_read_observer(nullptr);
  set_cpuid_observer(nullptr);
}

CaptureWriter::CaptureWriter(Machine& source, const fs::path& dir)
    : src_(source), in_(source.files()), out_(dir), dest_(dir) {}

fs::path CaptureWriter::src_path(const fs::path& rel) const {
  return in_.path() / rel;
}

std::string CaptureWriter::abs(const fs::path& rel) {
  return "/" + rel.generic_string();
}

void CaptureWriter::skip(const fs::path& rel, std::string why) {
  if (skipped_paths_.insert(rel).second) summary_.skipped.push_back({abs(rel), std::move(why)});
}

void CaptureWriter::note(std::string what, std::string why) {
  summary_.skipped.push_back({std::move(what), std::move(why)});
}

bool CaptureWriter::is_register_file(const fs::path& rel) const {
  static const std::regex resource(R"(resource[0-9]+(_wc)?)");
  if (std::regex_match(rel.filename().string(), resource)) return true;
  if (auto mem = in_.below(src_.param("devmem.path")); mem && *mem == rel) return true;
  auto cpus = in_.below(src_.param("msr.path"));
  return cpus && rel.filename() == "msr" && rel.parent_path().parent_path() == *cpus;
}

// The register file `rel` of the capture, opened for writing (created, with its directories).
UniqueFd CaptureWriter::open_output(const fs::path& rel) {
  const fs::path file = dest_.path() / rel;
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK;
  auto r = dest_.open(file, flags, 0644);
  if (!r.fd && r.err == ENOENT) {
    dest_.create_directories(file.parent_path());
    r = dest_.open(file, flags, 0644);
  }
  if (!r.fd) throw Error(dest_.describe_error(file, r.err));
  return std::move(r.fd);
}

// Makes the capture's register file `rel` at least `size` bytes, sparse: its bytes are those
// write_at puts there, zero elsewhere.
void CaptureWriter::extend(const fs::path& rel, std::uint64_t size) {
  auto fd = open_output(rel);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) >= size) return;
  if (size > static_cast<std::uint64_t>(INT64_MAX) || ::ftruncate(fd.get(), static_cast<off_t>(size)) != 0)
    throw_errno(fmt::format("{}: extend to {:#x} bytes", (dest_.path() / rel).string(), size), errno);
}

void CaptureWriter::write_at(const fs::path& rel, std::uint64_t offset, const std::vector<std::uint8_t>& data) {
  auto fd = open_output(rel);
  ssize_t n = ::pwrite(fd.get(), data.data(), data.size(), static_cast<off_t>(offset));
  if (n != static_cast<ssize_t>(data.size()))
    throw_errno(fmt::format("{}: write at {:#x}", (dest_.path() / rel).string(), offset), n < 0 ? errno : EIO);
}

void CaptureWriter::copy_path(const fs::path& rel, int depth) {
  if (depth > kMaxLinks) return skip(rel, "too many levels of symbolic links");
  std::vector<fs::path> parts(rel.begin(), rel.end());
  fs::path at;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    at /= parts[i];
    auto st = in_.stat(src_path(at), false);
    if (!st) return;  // absent on the source: absent in the capture
    if (S_ISLNK(st->st_mode)) {
      fs::path rest;
      for (std::size_t j = i + 1; j < parts.size(); ++j) rest /= parts[j];
      return follow_link(at, rest, depth);
    }
    if (S_ISDIR(st->st_mode)) {
      if (made_dirs_.insert(at).second) dest_.create_directories(dest_.path() / at);
      continue;
    }
    if (i + 1 != parts.size()) return;  // a file where a directory belongs: the reader saw nothing below
    copy_file(at, *st);
  }
}

void CaptureWriter::follow_link(const fs::path& at, const fs::path& rest, int depth) {
  auto text = in_.read_link(src_path(at));
  if (!text) return skip(at, "a symbolic link that cannot be read");
  fs::path target = fs::path(*text).is_absolute() ? fs::path(*text).relative_path() : at.parent_path() / *text;
  target = target.lexically_normal();
  if (target.empty() || *target.begin() == "..")
    return skip(at, fmt::format("a symbolic link that leads out of the machine root (to {})", *text));
  if (made_links_.insert(at).second) {
    out_.make_link(abs(at), abs(target));
    ++summary_.links;
  }
  copy_path(rest.empty() ? target : target / rest, depth + 1);
}

void CaptureWriter::copy_file(const fs::path& rel, const struct stat& st) {
  if (!copied_.insert(rel).second) return;
  if (is_private(rel))
    return skip(rel, "private (serial numbers, UUIDs, asset tags and MAC addresses are never captured)");
  if (is_register_file(rel)) {
    // Only the pages discovery read (copy_ranges) and the MSRs it read (copy_msrs) are copied; a
    // device becomes a regular file, as the snapshot layout has it.
    extend(rel, S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0);
    return;
  }
  auto cpus = in_.below(src_.param("msr.path"));
  if (cpus && rel.filename() == "cpuid" && rel.parent_path().parent_path() == *cpus) return;  // copy_cpuid
  if (!S_ISREG(st.st_mode)) return skip(rel, fmt::format("{}, not a regular file", file_type_name(st.st_mode)));
  std::optional<std::string> text;
  try {
    text = in_.read_text(src_path(rel), kProcTextLimit);
  } catch (const Error& e) {
    return skip(rel, e.what());
  }
  if (!text) return skip(rel, "cannot be read");
  if (rel == in_.below(src_.param("cpuinfo.path"))) *text = scrub_cpuinfo(*text);
  out_.write_text(abs(rel), *text);
  ++summary_.files;
  // An unprivileged reader of a live config file gets its first 64 bytes: the capture holds what
  // was read, no invented zeros, and says so (replayed, pmukit warns that root is needed).
  if (rel.filename() == "config" && text->size() < static_cast<std::uint64_t>(st.st_size) && !short_config_) {
    short_config_ = true;
    note("PCI config space", fmt::format("only the first {} bytes of each function could be read (not root); "
                                         "capture as root for all of it",
                                         text->size()));
  }
}

void CaptureWriter::copy_listing(const fs::path& rel) {
  std::optional<std::vector<DirEntry>> entries;
  try {
    entries = in_.list(src_path(rel), limits::kDirEntries);
  } catch (const Error& e) {
    return skip(rel, e.what());
  }
  copy_path(rel, 0);
  // The names a directory listing shows that are themselves structure (links, directories) are
  // made; files in it are copied when discovery read them.
  for (const auto& e : entries.value_or(std::vector<DirEntry>{})) {
    if (e.type == DT_LNK || e.type == DT_DIR || e.type == DT_UNKNOWN) copy_path(rel / e.name, 0);
  }
}

void CaptureWriter::copy_recorded(const CaptureRecorder& recorder) {
  for (const auto& [seen, kind] : recorder.paths()) {
    const fs::path rel = seen.lexically_normal();
    if (rel.empty() || rel == "." || *rel.begin() == "..") continue;
    if (kind & CaptureRecorder::kListed)
      copy_listing(rel);
    else
      copy_path(rel, 0);
  }
}

void CaptureWriter::copy_pci() {
  if (src_.options().pci_dump)
    return note(src_.options().pci_dump->string(), "a PCI dump file, not part of the machine root");
  auto sysfs = in_.below(src_.param("sysfs.path"));
  if (!sysfs) return note(src_.param("sysfs.path").string(), "outside the machine root (-O sysfs.path)");
  const fs::path devices = *sysfs / "devices";
  copy_listing(devices);
  for (const auto& e : in_.list(src_path(devices), limits::kPciDevices).value_or(std::vector<DirEntry>{}))
    for (const char* file : libpci_device_files()) copy_path(devices / e.name / file, 0);
}

void CaptureWriter::copy_kernel_pmus() {
  auto events = in_.below(src_.param("events.path"));
  if (!events) return note(src_.param("events.path").string(), "outside the machine root (-O events.path)");
  copy_listing(*events);
  // Every perf PMU as pmu-raw and perf read it, whether discovery looked at it or not: a bug
  // report about an event needs them.
  for (const auto& pmu : in_.list(src_path(*events), limits::kDirEntries).value_or(std::vector<DirEntry>{})) {
    const fs::path dir = *events / pmu.name;
    for (const char* file : {"type", "cpumask", "perf_event_mux_interval_ms"}) copy_path(dir / file, 0);
    for (const char* sub : {"format", "events"})
      for (const auto& e : in_.list(src_path(dir / sub), limits::kDirEntries).value_or(std::vector<DirEntry>{}))
        copy_path(dir / sub / e.name, 0);
  }
}

void CaptureWriter::copy_acpi_devices() {
  auto devices = in_.below(src_.param("acpidev.path"));
  if (!devices) return note(src_.param("acpidev.path").string(), "outside the machine root (-O acpidev.path)");
  copy_listing(*devices);
  // Each device's identity, whether discovery read it or not: a device without _HID whose
  // physical_node is a PCI function is what issue 27's phantom meshes came from.
  for (const auto& dev : in_.list(src_path(*devices), limits::kDirEntries).value_or(std::vector<DirEntry>{}))
    for (const char* file : {"hid", "uid", "adr", "path", "status", "physical_node"})
      copy_path(*devices / dev.name / file, 0);
}

// Reads `len` bytes at `offset` of register file `file` through a read-only window over exactly
// that range, 32 bits at a time (as discovery reads), into `out`.
bool CaptureWriter::read_range(const std::string& file, std::uint64_t offset, std::uint64_t len,
                               std::vector<std::uint8_t>& out) {
  auto r = src_.open_register(file, false);
  if (!r.fd) return false;
  RegisterWindow w(r.fd.get(), file, offset, len, 0, false);
  out.resize(len);
  for (std::uint64_t at = 0; at < len; at += 4) {
    std::uint32_t v = w.read32(at);
    for (unsigned b = 0; b < 4; ++b) out[at + b] = static_cast<std::uint8_t>(v >> 8 * b);
  }
  return true;
}

void CaptureWriter::copy_ranges(const CaptureRecorder& recorder) {
  std::vector<std::uint8_t> bytes;
  for (const auto& [file, lo, hi] : recorder.register_ranges()) {
    auto rel = in_.below(file);
    if (!rel) {
      note(file, "a register file outside the machine root (-O)");
      continue;
    }
    if (lo % 4 != 0 || hi % 4 != 0) {
      skip(*rel, fmt::format("register range {:#x}..{:#x} is not 32-bit aligned", lo, hi));
      continue;
    }
    copy_path(*rel, 0);
    try {
      if (!read_range(file, lo, hi - lo, bytes)) {
        skip(*rel, fmt::format("register range {:#x}..{:#x}: cannot be opened again", lo, hi));
        continue;
      }
    } catch (const Error& e) {
      skip(*rel, e.what());
      continue;
    }
    write_at(*rel, lo, bytes);
    summary_.register_bytes += bytes.size();
  }
}

void CaptureWriter::copy_msrs(const CaptureRecorder& recorder) {
  for (const auto& [cpu, msr] : recorder.msrs()) {
    auto v = src_.msr(cpu).try_read(msr);
    if (!v) continue;
    out_.set_msr(cpu, msr, *v);
    ++summary_.msrs;
  }
}

// The CPUID device cannot be copied (each read runs CPUID); the leaves discovery read are written
// as the snapshot's text file instead.
void CaptureWriter::copy_cpuid(const CaptureRecorder& recorder) {
  for (const auto& [cpu, leaves] : recorder.cpuid()) {
    std::string text;
    for (const auto& [key, line] : leaves) text += line;
    out_.write_text(fmt::format("/dev/cpu/{}/cpuid", cpu), text);
  }
}

CaptureSummary write_capture(Machine& source, const CaptureRecorder& recorder, const fs::path& dir,
                             std::string_view tool) {
  CaptureWriter w(source, dir);
  w.copy_recorded(recorder);
  w.copy_pci();
  w.copy_kernel_pmus();
  w.copy_acpi_devices();
  w.copy_ranges(recorder);
  w.copy_msrs(recorder);
  w.copy_cpuid(recorder);
  if (recorder.register_ranges().empty())
    w.note("register windows", "discovery proved no PMU register region on this machine, so no MMIO page was read");
  if (recorder.msrs().empty()) w.note("MSRs", "discovery read no MSR on this machine");
  w.write_manifest(tool);
  return w.summary();
}

}  // namespace pmukit::snapshot
