// pmukit -- file helpers.
#include "pmukit/util/file.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_errno(path.string(), errno ? errno : ENOENT);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw_errno(path.string(), errno ? errno : EIO);
  return ss.str();
}

std::optional<std::string> try_read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

std::optional<std::string> try_read_line(const std::filesystem::path& path) {
  auto text = try_read_file(path);
  if (!text) return std::nullopt;
  std::string_view v(*text);
  if (auto nl = v.find('\n'); nl != std::string_view::npos) v = v.substr(0, nl);
  return std::string(trim(v));
}

std::optional<std::int64_t> try_read_int(const std::filesystem::path& path) {
  auto line = try_read_line(path);
  if (!line || line->empty()) return std::nullopt;
  std::string_view v(*line);
  bool negative = false;
  if (v.front() == '-') {
    negative = true;
    v.remove_prefix(1);
  }
  auto n = parse_u64(v);
  if (!n) return std::nullopt;
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

std::optional<std::vector<int>> parse_cpu_list(std::string_view s) {
  std::vector<int> cpus;
  s = trim(s);
  if (s.empty()) return cpus;
  for (std::string_view part : split(s, ',')) {
    auto dash = part.find('-');
    auto lo = parse_u64(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : parse_u64(part.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi > 1u << 20) return std::nullopt;
    for (auto c = *lo; c <= *hi; ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

}  // namespace pmukit
