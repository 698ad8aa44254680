// pmukit -- PMU name patterns and the check of an event's terms against a PMU type.
#include "pmukit/metrics/pmu_type.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/util/text.h"

namespace pmukit::metrics {

namespace {

bool is_dec(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_dec(c) || (c >= 'a' && c <= 'f');
}

// Tries every length of each number, longest first, so that a number followed by a literal digit
// in the pattern ("uncore_%u0") still matches; names are short, so backtracking costs nothing.
bool match(std::string_view p, std::string_view n) {
  while (!p.empty()) {
    if (p.size() >= 2 && p[0] == '%' && (p[1] == 'u' || p[1] == 'x')) {
      bool (*digit)(char) = p[1] == 'u' ? is_dec : is_hex;
      std::size_t run = 0;
      while (run < n.size() && digit(n[run])) ++run;
      for (std::size_t len = run; len >= 1; --len)
        if (match(p.substr(2), n.substr(len))) return true;
      return false;
    }
    if (n.empty() || p[0] != n[0]) return false;
    p.remove_prefix(1);
    n.remove_prefix(1);
  }
  return n.empty();
}

}  // namespace

bool pmu_name_matches(std::string_view pattern, std::string_view name) {
  return match(pattern, name);
}

std::string check_pmu_pattern(std::string_view pattern) {
  if (pattern.empty()) return "empty PMU pattern";
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '%') {
      if (i + 1 < pattern.size() && (pattern[i + 1] == 'u' || pattern[i + 1] == 'x')) {
        ++i;
        continue;
      }
      return fmt::format("'{}' is not %u or %x", pattern.substr(i, 2));
    }
    // Kernel PMU names are identifiers (they are directory names under event_source/devices).
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_dec(c) || c == '_';
    if (!ok) return fmt::format("character '{}' cannot be part of a PMU name", c);
  }
  return {};
}

bool PmuType::has_term(std::string_view term) const {
  return std::find(terms.begin(), terms.end(), term) != terms.end();
}

bool PmuType::has_event(std::string_view event) const {
  return std::find(events.begin(), events.end(), event) != events.end();
}

std::string PmuType::check_event(std::string_view event) const {
  if (trim(event).empty()) return "empty event";
  for (std::string_view item : split(event, ',')) {
    item = trim(item);
    if (item.empty()) return fmt::format("empty term in '{}'", event);
    auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      if (!has_event(item)) return fmt::format("'{}' is not an event of {}", item, pattern);
      continue;
    }
    std::string_view key = trim(item.substr(0, eq));
    std::string_view value = trim(item.substr(eq + 1));
    if (!has_term(key)) return fmt::format("'{}' is not a term of {}", key, pattern);
    if (!parse_u64(value)) return fmt::format("'{}': '{}' is not a number", key, value);
  }
  return {};
}

}  // namespace pmukit::metrics
