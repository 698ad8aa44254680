// parse_format, format_text and the bit spreading every encoder relies on.
#include <gtest/gtest.h>

#include <random>

#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"

using namespace pmukit;
using namespace pmukit::syntax;

namespace {

std::string ranges_str(const FormatField& f) {
  std::string s;
  for (const auto& r : f.ranges)
    s += "{" + std::to_string(r.config) + "," + std::to_string(r.lo) + "," + std::to_string(r.hi) + "}";
  return s;
}

}  // namespace

TEST(Format, SingleRange) {
  auto f = parse_format("event", "config:0-7\n");
  EXPECT_EQ(f.name, "event");
  EXPECT_EQ(ranges_str(f), "{0,0,7}");
  EXPECT_EQ(format_width(f), 8u);
  EXPECT_EQ(format_max(f), 0xffu);
}

TEST(Format, SingleBitInConfig1) {
  auto f = parse_format("src_bdf_en", "config1:24");
  EXPECT_EQ(ranges_str(f), "{1,24,24}");
  EXPECT_EQ(format_width(f), 1u);
  EXPECT_EQ(format_text(f), "config1:24");
}

TEST(Format, SplitRangesAsOnSapphireRapidsUmask) {
  auto f = parse_format("umask", "config:8-15,32-55");
  EXPECT_EQ(ranges_str(f), "{0,8,15}{0,32,55}");
  EXPECT_EQ(format_width(f), 32u);
  EXPECT_EQ(format_text(f), "config:8-15,32-55");
}

TEST(Format, WholeWordOfConfig2) {
  auto f = parse_format("dst_addr_mask", "config2:0-63");
  EXPECT_EQ(ranges_str(f), "{2,0,63}");
  EXPECT_EQ(format_width(f), 64u);
  EXPECT_EQ(format_max(f), ~0ull);
  EXPECT_EQ(spread_value(f, ~0ull)[2], ~0ull);
}

TEST(Format, BitListsAndOrderDoNotMatterLikePerfsBitmap) {
  // perf keeps a format as a bitmap: written order and repeats do not change the encoding.
  EXPECT_EQ(ranges_str(parse_format("umask", "config:32-55,8-15")), "{0,8,15}{0,32,55}");
  EXPECT_EQ(ranges_str(parse_format("x", "config:0,2,4")), "{0,0,0}{0,2,2}{0,4,4}");
  EXPECT_EQ(ranges_str(parse_format("x", "config:0-7,4-11")), "{0,0,11}");
  EXPECT_EQ(ranges_str(parse_format("x", "config0: 1 - 3 ")), "{0,1,3}");
}

TEST(Format, ErrorsNameTheField) {
  struct Case {
    const char* text;
    const char* reason;
  };
  const Case cases[] = {
      {"config:15-8", "range 15-8 is reversed"},
      {"config:0-64", "bit 64 is past bit 63"},
      {"config3:0-7", "config3 is not supported"},
      {"confog:0-7", "'confog' is not config, config1 or config2"},
      {"0-7", "expected 'config:'"},
      {"config:", "no bits after ':'"},
      {"config:a-b", "'a' is not a bit number"},
      {"config:0x3", "'0x3' is not a bit number"},
      {"config:0-7,", "empty bit range"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parse_format("umask", c.text);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_EQ(msg.rfind("format 'umask': '", 0), 0u) << msg;
      EXPECT_NE(msg.find(c.reason), std::string::npos) << msg;
    }
  }
}

TEST(Format, SpreadPutsLowBitsInTheLowestRangeFirst) {
  auto umask = parse_format("umask", "config:8-15,32-55");
  ConfigWords w = spread_value(umask, 0x320);
  EXPECT_EQ(w[0], 0x0000000300002000ull);
  EXPECT_EQ(w[1], 0u);
  EXPECT_EQ(w[2], 0u);
  EXPECT_EQ(spread_value(umask, 0xffffffff)[0], 0x00ffffff0000ff00ull);
}

TEST(Format, SpreadDropsBitsAboveTheWidth) {
  auto event = parse_format("event", "config:0-7");
  EXPECT_EQ(spread_value(event, 0x1ff)[0], 0xffu);
}

TEST(Format, GatherInvertsSpreadForEveryValueThatFits) {
  const char* texts[] = {"config:0-7", "config:8-15,32-55", "config1:8-23", "config2:0-63", "config:0,3,5-9,40-41,63"};
  std::mt19937_64 rng(20261122);  // fixed start value: the same values on every run
  for (const char* text : texts) {
    auto f = parse_format("f", text);
    for (int i = 0; i < 1000; ++i) {
      std::uint64_t v = rng() & format_max(f);
      ASSERT_EQ(gather_value(f, spread_value(f, v)), v) << text << " value " << v;
    }
  }
}

TEST(Format, GatherIgnoresBitsOutsideTheField) {
  auto lane = parse_format("lane", "config:20-27");
  EXPECT_EQ(gather_value(lane, ConfigWords{0xfff0000full, ~0ull, ~0ull}), 0xffu);
  EXPECT_EQ(gather_value(lane, ConfigWords{0x000300020ull, 0, 0}), 0x3u);
}
