// pmukit -- file helpers.
#include "pmukit/util/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/util/confined_root.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit {

std::string read_file(const std::filesystem::path& path) {
  // read(2) into one buffer sized from fstat: a 50 MB event file is read in one pass, without the
  // copies a stringstream makes (a FIFO the user named is read to its end as well).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno(path.string(), errno);
  UniqueFd owner(fd);
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno(path.string(), errno);
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
  }
}

std::optional<std::string> try_read_file(const std::filesystem::path& path) {
  try {
    return ConfinedRoot("/").read_text(path, 256u << 20);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string first_line(std::string_view v) {
  if (auto nl = v.find('\n'); nl != std::string_view::npos) v = v.substr(0, nl);
  return std::string(trim(v));
}

std::optional<std::string> try_read_line(const std::filesystem::path& path) {
  auto text = try_read_file(path);
  if (!text) return std::nullopt;
  return first_line(*text);
}

std::optional<std::int64_t> try_read_int(const std::filesystem::path& path) {
  auto line = try_read_line(path);
  if (!line) return std::nullopt;
  return parse_int_line(*line);
}

std::optional<std::int64_t> parse_int_line(std::string_view v) {
  if (v.empty()) return std::nullopt;
  bool negative = false;
  if (v.front() == '-') {
    negative = true;
    v.remove_prefix(1);
  }
  auto n = parse_u64(v);
  if (!n || *n > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return negative ? -static_cast<std::int64_t>(*n) : static_cast<std::int64_t>(*n);
}

void write_file(const std::filesystem::path& path, std::string_view data) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw_errno(path.string(), errno ? errno : EACCES);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) throw_errno(path.string(), errno ? errno : EIO);
}

void make_directories(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec) return;
  std::string hint;
  if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted) {
    // The nearest directory that exists is the one that refused the new entry.
    auto parent = dir;
    std::error_code e;
    while (parent.has_parent_path() && parent != parent.parent_path() && !std::filesystem::exists(parent, e))
      parent = parent.parent_path();
    hint = fmt::format(" (uid {} may not write in {}: choose a directory it may write, or run as its owner)",
                       ::geteuid(), parent.string());
  }
  throw Error(fmt::format("cannot create the directory {}: {}{}", dir.string(), ec.message(), hint));
}

std::optional<std::vector<int>> parse_cpu_list(std::string_view s) {
  std::vector<int> cpus;
  s = trim(s);
  if (s.empty()) return cpus;
  for (std::string_view part : split(s, ',')) {
    auto dash = part.find('-');
    auto lo = parse_u64(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : parse_u64(part.substr(dash + 1));
    // CPU numbers and the list's length stay within Linux's largest NR_CPUS (limits.h).
    if (!lo || !hi || *hi < *lo || *hi >= limits::kCpus || cpus.size() + (*hi - *lo) >= limits::kCpus)
      return std::nullopt;
    for (auto c = *lo; c <= *hi; ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace pmukit
