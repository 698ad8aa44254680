// pmukit -- text helpers.
#include "pmukit/util/text.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "pmukit/util/error.h"

namespace pmukit {

static std::optional<std::uint64_t> parse_base(std::string_view s, int base) {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  s = trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_base(s.substr(2), 16);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) return parse_base(s.substr(2), 2);
  return parse_base(s, 10);
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  s = trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  return parse_base(s, 16);
}

std::uint64_t parse_u64_or_throw(std::string_view s, std::string_view what) {
  if (auto v = parse_u64(s)) return *v;
  throw UsageError(fmt::format("{}: '{}' is not a number", what, s));
}

std::from_chars_result parse_double(const char* first, const char* last, double& value) {
  // What strtod takes and from_chars does not: leading space, '+', hex ("0x1p3" is 0, then 'x').
  const char* p = first;
  if (p != last && *p == '-') ++p;
  if (p == last ||
      !(std::isdigit(static_cast<unsigned char>(*p)) || *p == '.' || *p == 'i' || *p == 'I' || *p == 'n' || *p == 'N'))
    return {first, std::errc::invalid_argument};
  if (last - p > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) last = p + 1;
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", nullptr);
  std::string text(first, last);  // strtod reads up to a NUL
  char* end = nullptr;
  errno = 0;
  double v = strtod_l(text.c_str(), &end, c_locale);
  if (end == text.c_str()) return {first, std::errc::invalid_argument};
  const char* stop = first + (end - text.c_str());
  // strtod says ERANGE for subnormal results too; from_chars only when nothing finite and nonzero
  // is left (overflow to infinity, underflow to zero).
  if (errno == ERANGE && (v == 0 || std::isinf(v))) return {stop, std::errc::result_out_of_range};
  value = v;
  return {stop, std::errc()};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string hex(std::uint64_t v, int digits) {
  return fmt::format("0x{:0{}x}", v, digits);
}

std::optional<std::string_view> numbered_family(std::string_view name) {
  auto us = name.find_last_of('_');
  if (us == std::string_view::npos || us == 0 || us + 1 == name.size()) return std::nullopt;
  for (char c : name.substr(us + 1))
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return name.substr(0, us);
}

}  // namespace pmukit
