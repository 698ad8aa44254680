// pmu-raw -- the text pieces output is made of.
#include "report_text.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace pmukit::tools {

namespace {

bool json_plain(char c) {
  return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
}

}  // namespace

void put(Text& out, std::uint64_t v) {
  const fmt::format_int digits(v);
  put(out, std::string_view(digits.data(), digits.size()));
}

// `s` padded with spaces to `width` columns, on the left (right-aligned) or the right, as fmt's
// {:>N} and {:<N} do; fmt itself counts the columns of text that is not ASCII.
void pad(Text& out, std::string_view s, std::size_t width, bool right_align) {
  if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
    if (right_align) return fmt::format_to(fmt::appender(out), "{:>{}}", s, width), void();
    return fmt::format_to(fmt::appender(out), "{:<{}}", s, width), void();
  }
  const std::size_t spaces = s.size() < width ? width - s.size() : 0;
  if (!right_align) put(out, s);
  for (std::size_t i = 0; i < spaces; ++i) out.push_back(' ');
  if (right_align) put(out, s);
}

// The share of the time counted, as "{:.2f}" writes it; 100.00 (the common case) without it.
void percent(Text& out, double p) {
  if (p == 100.0) return put(out, "100.00");
  fmt::format_to(fmt::appender(out), "{:.2f}", p);
}

// A JSON string as nlohmann::json::dump writes it (UTF-8 kept, control characters escaped).

void json_string(Text& out, std::string_view s) {
  out.push_back('"');
  // The text up to the first character that needs escaping (all of it, for names and units) in one copy.
  const auto plain = std::find_if_not(s.begin(), s.end(), json_plain);
  put(out, s.substr(0, static_cast<std::size_t>(plain - s.begin())));
  s.remove_prefix(static_cast<std::size_t>(plain - s.begin()));
  for (char c : s) {
    const char* escape = c == '"'    ? "\\\""
                         : c == '\\' ? "\\\\"
                         : c == '\b' ? "\\b"
                         : c == '\f' ? "\\f"
                         : c == '\n' ? "\\n"
                         : c == '\r' ? "\\r"
                         : c == '\t' ? "\\t"
                                     : nullptr;
    if (escape)
      put(out, escape);
    else if (static_cast<unsigned char>(c) < 0x20)
      fmt::format_to(fmt::appender(out), "\\u{:04x}", static_cast<unsigned>(c));
    else
      out.push_back(c);
  }
  out.push_back('"');
}

// A double as nlohmann::json::dump writes it: the shortest round-trip digits, ".0" on an integral
// value, null where JSON has no number. (fmt and nlohmann differ only from 1e15 up, far above any
// time or percentage here.)
void json_number(Text& out, double v) {
  if (!std::isfinite(v)) return put(out, "null");
  const std::size_t from = out.size();
  fmt::format_to(fmt::appender(out), "{}", v);
  if (view(out).substr(from).find_first_of(".e") == std::string_view::npos) put(out, ".0");
}

}  // namespace pmukit::tools
