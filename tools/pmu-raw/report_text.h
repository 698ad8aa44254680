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
// Text copied in whole blocks of kSlack bytes, reading and writing up to kSlack bytes past its
// end: a few unaligned moves for the short pieces a line is made of, rather than a call to memcpy.
// The source (never null, even when empty) must lie in storage with kSlack bytes after it (a
// padded plan, or a Text reserved so), the destination have that much room.
constexpr std::size_t kSlack = 32;
[[gnu::always_inline]] inline char* copy_padded(char* to, std::string_view s) {
  std::memcpy(to, s.data(), kSlack);
  for (std::size_t i = kSlack; i < s.size(); i += kSlack) std::memcpy(to + i, s.data() + i, kSlack);
  return to + s.size();
}
// The decimal digits of `v` at `to` (room for LineWriter::kDigits), returning their end: its
// length from the highest bit set and one comparison, then the digits from the right, four per
// step -- std::to_chars's method without its length loop, as a line's count is written on every line.
[[gnu::always_inline]] inline char* put_decimal(char* to, std::uint64_t v) {
  static constexpr std::uint64_t kPow10[20] = {1ull,
                                               10ull,
                                               100ull,
                                               1000ull,
                                               10000ull,
                                               100000ull,
                                               1000000ull,
                                               10000000ull,
                                               100000000ull,
                                               1000000000ull,
                                               10000000000ull,
                                               100000000000ull,
                                               1000000000000ull,
                                               10000000000000ull,
                                               100000000000000ull,
                                               1000000000000000ull,
                                               10000000000000000ull,
                                               100000000000000000ull,
                                               1000000000000000000ull,
                                               10000000000000000000ull};
  static constexpr char kPairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                   "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                   "8081828384858687888990919293949596979899";
  // floor(log10(2^b)) + 1 digits for the highest bit b, one more where v reaches the next power.
  const unsigned bits = 63u - static_cast<unsigned>(__builtin_clzll(v | 1));
  unsigned n = ((bits * 1233u) >> 12) + 1;
  n += n < 20 && v >= kPow10[n];
  char* end = to + n;
  char* p = end;
  while (v >= 10000) {  // four digits a step: one division by 10^4, its remainder's halves in 32 bits
    const std::uint64_t q = v / 10000;
    const auto four = static_cast<std::uint32_t>(v - q * 10000);
    const std::uint32_t high = four / 100;
    p -= 4;
    std::memcpy(p, kPairs + 2 * high, 2);
    std::memcpy(p + 2, kPairs + 2 * (four - high * 100), 2);
    v = q;
  }
  if (v >= 100) {
    const std::uint64_t q = v / 100;
    p -= 2;
    std::memcpy(p, kPairs + 2 * (v - q * 100), 2);
    v = q;
  }
  if (v >= 10) {
    std::memcpy(p - 2, kPairs + 2 * v, 2);
  } else {
    p[-1] = static_cast<char>('0' + v);
  }
  return end;
}
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
