// Counter arithmetic at every width: deltas across wrap, overflow flags, 64-bit totals.
#include <gtest/gtest.h>

#include "pmukit/pmu/counter.h"

using pmukit::pmu::CounterTracker;

TEST(Counter, DeltasAcrossTheWrapAtEveryWidth) {
  for (unsigned width : {32u, 40u, 48u, 64u}) {
    SCOPED_TRACE(width);
    const std::uint64_t top = width == 64 ? ~0ull : (1ull << width) - 1;
    CounterTracker t(width);
    t.start(top - 9);
    auto u = t.update(5);  // 10 to reach 2^w, then 5 more
    EXPECT_EQ(u.delta, 15u);
    EXPECT_TRUE(u.wrapped);
    EXPECT_FALSE(u.lost);
    u = t.update(105);
    EXPECT_EQ(u.delta, 100u);
    EXPECT_FALSE(u.wrapped);
    EXPECT_EQ(t.total(), 115u);
  }
}

TEST(Counter, BitsAboveTheWidthAreIgnored) {
  CounterTracker t(48);
  t.start(0xffff000000000010ull);  // garbage above bit 47, as a hi-lo-hi read of junk might give
  EXPECT_EQ(t.update(0x0000000000000020ull).delta, 0x10u);
}

TEST(Counter, OverflowFlagWithoutVisibleWrapMeansLost) {
  CounterTracker t(32);
  t.start(100);
  auto u = t.update(200, true);  // the flag says it passed 2^32: 200 - 100 is wrong by 2^32 at least
  EXPECT_TRUE(u.lost);
  EXPECT_TRUE(t.ever_lost());
  auto v = t.update(50, true);  // a visible wrap explains the flag
  EXPECT_FALSE(v.lost);
  EXPECT_EQ(v.delta, (1ull << 32) - 200 + 50);
}

TEST(Counter, TotalsKeepGrowingPastOneWrapPerInterval) {
  CounterTracker t(32);
  t.start(0);
  std::uint64_t raw = 0, expect = 0;
  for (int i = 0; i < 10; ++i) {  // 3e9 per step: wraps almost every step
    raw = (raw + 3'000'000'000ull) & 0xffffffffull;
    expect += 3'000'000'000ull;
    t.update(raw);
  }
  EXPECT_EQ(t.total(), expect);
}
