// The simulator's counts: rate x time to the unit, however the time is split into steps -- what
// lets end-to-end tests expect exact figures whatever read pattern pmu-raw chooses.
#include <gtest/gtest.h>

#include "pmukit/sim/simulator.h"

using pmukit::sim::Accumulator;

TEST(SimAccumulator, IntegralRatesCountExactlyOverUnevenSteps) {
  Accumulator a;
  std::uint64_t total = 0;
  // 2^29 ns steps: 3e7 x 0.536870912 s is 16106127.36 counts a step, never a whole number.
  for (int i = 0; i < 372; ++i) total += a.advance(3e7, 536'870'912);
  total += a.advance(3e7, 200'000'000'000ull - 372ull * 536'870'912);
  EXPECT_EQ(total, 6'000'000'000u);
  Accumulator b;
  std::uint64_t ns = 0, counted = 0;
  for (std::uint64_t step = 1; ns + step <= 10'000'000'000ull; step = step * 7 + 3) {
    counted += b.advance(1e9, step);
    ns += step;
    EXPECT_EQ(counted, ns);  // one count per ns, at every step
  }
}

TEST(SimAccumulator, FractionalRatesCarryTheirFraction) {
  Accumulator a;
  std::uint64_t total = 0;
  for (int i = 0; i < 1000; ++i) total += a.advance(2.5, 1'000'000);  // 0.0025 counts a step
  EXPECT_EQ(total, 2u);
  total += a.advance(2.5, 999'000'000'000ull);
  EXPECT_EQ(total, 2500u);
}
