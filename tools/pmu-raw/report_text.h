// pmu-raw -- the text pieces output is made of, appended to a reused buffer without allocating:
// fields, padding, perf's percentages, and JSON as nlohmann::json::dump writes it.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace pmukit::tools {

// Text built for output: grows to the largest interval once, then is reused (no allocation).
using Text = fmt::memory_buffer;

// One memcpy (fmt's append copies byte by byte); inline, as output is mostly this.
inline void put(Text& out, std::string_view s) {
  const std::size_t at = out.size();
  out.resize(at + s.size());
  if (!s.empty()) std::memcpy(out.data() + at, s.data(), s.size());
}
void put(Text& out, std::uint64_t v);

// One line appended through a raw pointer, after reserving room for the longest it can be: one
// capacity check per line rather than one per piece (fmt's resize checks on each). `longest`
// must cover everything written; the buffer's size is set to what was written when it goes.
class LineWriter {
 public:
  static constexpr std::size_t kDigits = 20;  // of the largest std::uint64_t
  LineWriter(Text& out, std::size_t longest) : out_(out) {
    out.reserve(out.size() + longest);
    end_ = out.data() + out.size();
  }
  ~LineWriter() { out_.resize(static_cast<std::size_t>(end_ - out_.data())); }
  LineWriter(const LineWriter&) = delete;
  LineWriter& operator=(const LineWriter&) = delete;

  LineWriter& operator<<(std::string_view s) {
    if (!s.empty()) std::memcpy(end_, s.data(), s.size());
    end_ += s.size();
    return *this;
  }
  LineWriter& operator<<(char c) {
    *end_++ = c;
    return *this;
  }
  LineWriter& operator<<(std::uint64_t v) {
    end_ = std::to_chars(end_, end_ + kDigits, v).ptr;
    return *this;
  }
  void spaces(std::size_t n) {
    std::memset(end_, ' ', n);
    end_ += n;
  }

 private:
  Text& out_;
  char* end_;
};
inline std::string_view view(const Text& t) {
  return {t.data(), t.size()};
}
// `s` padded with spaces to `width` columns, on the left (right-aligned) or the right, as fmt's
// {:>N} and {:<N} do.
void pad(Text& out, std::string_view s, std::size_t width, bool right_align);
// The share of the time counted, as "{:.2f}" writes it.
void percent(Text& out, double p);
// A JSON string as nlohmann::json::dump writes it (UTF-8 kept, control characters escaped).
void json_string(Text& out, std::string_view s);
// A double as nlohmann::json::dump writes it.
void json_number(Text& out, double v);

// One JSON object on a line, members in the order given (as nlohmann::ordered_json keeps them),
// written as nlohmann::json::dump writes it, straight into the interval's buffer.
class JsonLine {
 public:
  explicit JsonLine(Text& out) : out_(out) { out_.push_back('{'); }
  ~JsonLine() { put(out_, "}\n"); }
  JsonLine(const JsonLine&) = delete;
  JsonLine& operator=(const JsonLine&) = delete;

  // `k` is one of this file's literal keys: nothing in it to escape.
  Text& key(std::string_view k) {
    if (members_++) out_.push_back(',');
    out_.push_back('"');
    put(out_, k);
    put(out_, "\":");
    return out_;
  }
  void string(std::string_view k, std::string_view v) { json_string(key(k), v); }
  void integer(std::string_view k, std::uint64_t v) { put(key(k), v); }
  void number(std::string_view k, double v) { json_number(key(k), v); }
  void raw(std::string_view k, std::string_view json) { put(key(k), json); }
  void boolean(std::string_view k, bool v) { put(key(k), v ? "true" : "false"); }

 private:
  Text& out_;
  unsigned members_ = 0;
};

}  // namespace pmukit::tools
