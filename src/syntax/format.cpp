// pmukit -- format/ parsing and value spreading.
#include "pmukit/syntax/format.h"

#include <fmt/format.h>

#include "pmukit/util/bits.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::syntax {

namespace {

[[noreturn]] void format_error(const std::string& name, std::string_view text, std::string_view reason) {
  throw Error(fmt::format("format '{}': '{}': {}", name, text, reason));
}

// A decimal bit number 0..63; the kernel writes them without prefixes.
unsigned parse_bit(const std::string& name, std::string_view text, std::string_view token) {
  token = trim(token);
  bool digits = !token.empty();
  for (char c : token) digits = digits && c >= '0' && c <= '9';
  auto v = digits ? parse_u64(token) : std::nullopt;
  if (!v) format_error(name, text, fmt::format("'{}' is not a bit number", token));
  if (*v > 63) format_error(name, text, fmt::format("bit {} is past bit 63", *v));
  return static_cast<unsigned>(*v);
}

}  // namespace

FormatField parse_format(std::string name, std::string_view text) {
  std::string_view body = trim(text);
  auto colon = body.find(':');
  if (colon == std::string_view::npos)
    format_error(name, body, "expected 'config:', 'config1:' or 'config2:' before the bits");
  std::string_view word = trim(body.substr(0, colon));
  int config = -1;
  if (word == "config" || word == "config0") config = 0;
  if (word == "config1") config = 1;
  if (word == "config2") config = 2;
  if (word == "config3") format_error(name, body, "config3 is not supported (pmukit encodes config, config1, config2)");
  if (config < 0) format_error(name, body, fmt::format("'{}' is not config, config1 or config2", word));

  // Collect the bits into a mask first, as perf's bitmap does, so order and repeats do not matter.
  std::uint64_t mask = 0;
  std::string_view bits = body.substr(colon + 1);
  if (trim(bits).empty()) format_error(name, body, "no bits after ':'");
  for (std::string_view part : split(bits, ',')) {
    if (trim(part).empty()) format_error(name, body, "empty bit range");
    auto dash = part.find('-');
    unsigned lo = parse_bit(name, body, part.substr(0, dash));
    unsigned hi = dash == std::string_view::npos ? lo : parse_bit(name, body, part.substr(dash + 1));
    if (hi < lo) format_error(name, body, fmt::format("range {}-{} is reversed", lo, hi));
    mask |= low_mask(hi - lo + 1) << lo;
  }

  FormatField field{std::move(name), {}};
  for (unsigned bit = 0; bit < 64;) {
    if (!(mask >> bit & 1)) {
      ++bit;
      continue;
    }
    unsigned lo = bit;
    while (bit < 64 && (mask >> bit & 1)) ++bit;
    field.ranges.push_back(FormatRange{config, lo, bit - 1});
  }
  return field;
}

std::string format_text(const FormatField& field) {
  std::string out;
  int current = -1;
  for (const auto& r : field.ranges) {
    if (r.config != current) {
      if (!out.empty()) out += ' ';
      out += r.config == 0 ? "config:" : fmt::format("config{}:", r.config);
      current = r.config;
    } else {
      out += ',';
    }
    out += r.lo == r.hi ? fmt::format("{}", r.lo) : fmt::format("{}-{}", r.lo, r.hi);
  }
  return out;
}

unsigned format_width(const FormatField& field) {
  unsigned width = 0;
  for (const auto& r : field.ranges) width += r.hi - r.lo + 1;
  return width;
}

std::uint64_t format_max(const FormatField& field) {
  return low_mask(format_width(field));
}

ConfigWords spread_value(const FormatField& field, std::uint64_t value) {
  ConfigWords words{};
  unsigned used = 0;  // value bits already placed
  for (const auto& r : field.ranges) {
    unsigned width = r.hi - r.lo + 1;
    std::uint64_t chunk = used >= 64 ? 0 : (value >> used) & low_mask(width);
    words.at(static_cast<std::size_t>(r.config)) |= chunk << r.lo;
    used += width;
  }
  return words;
}

std::uint64_t gather_value(const FormatField& field, const ConfigWords& words) {
  std::uint64_t value = 0;
  unsigned used = 0;
  for (const auto& r : field.ranges) {
    unsigned width = r.hi - r.lo + 1;
    std::uint64_t chunk = bits(words.at(static_cast<std::size_t>(r.config)), r.hi, r.lo);
    if (used < 64) value |= chunk << used;
    used += width;
  }
  return value;
}

}  // namespace pmukit::syntax
