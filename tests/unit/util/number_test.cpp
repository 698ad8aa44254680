// parse_double against std::from_chars, and round_half_away / round_to_int64 against std::round and
// std::llround: the standard library's answers are the expected ones (they are what the code used
// before; pmukit's versions exist only so that the tools do not load libm).
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pmukit/util/rounding.h"
#include "pmukit/util/text.h"

namespace pmukit {
namespace {

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

void expect_as_from_chars(const std::string& s) {
  double want = 42, got = 42;
  auto w = std::from_chars(s.data(), s.data() + s.size(), want);
  auto g = parse_double(s.data(), s.data() + s.size(), got);
  EXPECT_EQ(g.ptr - s.data(), w.ptr - s.data()) << "'" << s << "'";
  EXPECT_EQ(g.ec, w.ec) << "'" << s << "'";
  EXPECT_TRUE(same_bits(got, want)) << "'" << s << "': " << got << " vs " << want;
}

TEST(ParseDouble, ReadsWhatFromCharsReads) {
  for (const char* s : {"0",
                        "1",
                        "-1",
                        "1.5",
                        "-0",
                        ".5",
                        "5.",
                        ".",
                        "-",
                        "",
                        " 1",
                        "+1",
                        "1e3",
                        "1e",
                        "1e+",
                        "1e-3x",
                        "1E400",
                        "-1e400",
                        "1e-400",
                        "4.9e-324",
                        "2.4e-324",
                        "1e-310",
                        "2.2250738585072014e-308",
                        "inf",
                        "-inf",
                        "INF",
                        "infinity",
                        "infin",
                        "nan",
                        "-nan",
                        "nan(123)",
                        "nan(",
                        "0x1p3",
                        "-0x10",
                        "0x",
                        "1.2.3",
                        "6.103515625e-5MiB",
                        "64Bytes",
                        "1,5",
                        "e5",
                        "-.5",
                        "0.30000000000000004",
                        "1.7976931348623159e308",
                        "9007199254740993",
                        "123456789012345678901234567890",
                        "20.693146778"})
    expect_as_from_chars(s);
}

TEST(ParseDouble, ReadsWhatFromCharsReadsOnRandomText) {
  std::mt19937_64 g(1);
  const std::string alphabet = "0123456789.eE+-xXinfatyINF() ";
  for (int k = 0; k < 20000; ++k) {
    std::string s;
    for (int n = static_cast<int>(g() % 12); n > 0; --n) s += alphabet[g() % alphabet.size()];
    expect_as_from_chars(s);
  }
}

TEST(ParseDouble, Values) {
  double v = 0;
  std::string s = "6.103515625e-5MiB";
  auto r = parse_double(s.data(), s.data() + s.size(), v);
  EXPECT_EQ(v, 6.103515625e-5);
  EXPECT_EQ(std::string(r.ptr), "MiB");
  s = "0x10";  // hex is not read: the 0 is, and 'x' ends it
  r = parse_double(s.data(), s.data() + s.size(), v);
  EXPECT_EQ(v, 0.0);
  EXPECT_EQ(r.ptr, s.data() + 1);
}

TEST(Rounding, AsStdRound) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.5,
                   -0.5,
                   1.5,
                   2.5,
                   -2.5,
                   0.49999999999999994,
                   -0.49999999999999994,
                   0.4,
                   -0.4,
                   -0.0,
                   0.0,
                   4503599627370495.5,
                   4503599627370496.0,
                   -4503599627370495.5,
                   9007199254740993.0,
                   1e300,
                   -1e300,
                   inf,
                   -inf,
                   std::numeric_limits<double>::quiet_NaN(),
                   5e-324,
                   99.5,
                   99.49999999999999})
    EXPECT_TRUE(same_bits(round_half_away(x), std::round(x))) << x;
  std::mt19937_64 g(2);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t bits = g();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    double y = std::ldexp(static_cast<double>(g() >> 11), -static_cast<int>(g() % 60));
    for (double v : {x, y, -y}) {
      ASSERT_TRUE(same_bits(round_half_away(v), std::round(v))) << v;
      if (std::fabs(v) < 9e18) {
        ASSERT_EQ(round_to_int64(v), std::llround(v)) << v;
      }
    }
  }
}

}  // namespace
}  // namespace pmukit
