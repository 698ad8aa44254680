// Placing events on counters under per-event counter masks. The masks are the Counter fields of
// Intel's perfmon uncore files (github.com/intel/perfmon, SPR uncore-io.json and uncore-cache.json),
// written here as the files write them and turned into bits by the test.
#include <gtest/gtest.h>

#include <string>

#include "pmukit/pmu/counter_assignment.h"

using pmukit::pmu::assign_counters;
using pmukit::pmu::crowded_counters;

namespace {

// "0,1" -> 0x3: a perfmon Counter field as a counter mask.
std::uint32_t mask(const std::string& counter_field) {
  std::uint32_t m = 0;
  std::size_t at = 0;
  while (at < counter_field.size()) {
    m |= std::uint32_t{1} << std::stoul(counter_field.substr(at));
    auto comma = counter_field.find(',', at);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return m;
}

const std::uint32_t kInbound = mask("0,1");     // UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0
const std::uint32_t kOutbound = mask("2,3");    // UNC_IIO_DATA_REQ_BY_CPU.MEM_WRITE.PART0
const std::uint32_t kAny = mask("0,1,2,3");     // UNC_IIO_CLOCKTICKS
const std::uint32_t kTorOccupancy = mask("0");  // UNC_CHA_TOR_OCCUPANCY.IA_MISS

}  // namespace

TEST(CounterAssignment, PerfmonCounterFieldsAsMasks) {
  EXPECT_EQ(kInbound, 0x3u);
  EXPECT_EQ(kOutbound, 0xcu);
  EXPECT_EQ(kAny, 0xfu);
  EXPECT_EQ(kTorOccupancy, 0x1u);
}

// The fewest-counter events first, each on its lowest free counter: the unconstrained clockticks
// takes what the inbound and outbound events leave.
TEST(CounterAssignment, InboundAndOutboundShareABoxOnTheirOwnCounters) {
  auto placed = assign_counters({kAny, kInbound, kOutbound, kInbound});
  ASSERT_TRUE(placed);
  EXPECT_EQ(*placed, (std::vector<unsigned>{3, 0, 2, 1}));
  placed = assign_counters({kOutbound, kInbound});
  ASSERT_TRUE(placed);
  EXPECT_EQ(*placed, (std::vector<unsigned>{2, 0}));
}

// A later event takes a counter an earlier one holds when the earlier one can move (an augmenting
// path): with equal weights, in order, events 0 and 1 take counters 0 and 1, and event 2, which may
// use only those, fits when event 0 moves to counter 2.
TEST(CounterAssignment, EarlierEventsMoveWhenALaterOneNeedsTheirCounter) {
  auto placed = assign_counters({0x5, 0x6, 0x3});
  ASSERT_TRUE(placed);
  EXPECT_EQ(*placed, (std::vector<unsigned>{2, 1, 0}));
  placed = assign_counters({kAny, kTorOccupancy});
  ASSERT_TRUE(placed);
  EXPECT_EQ(*placed, (std::vector<unsigned>{1, 0}));
}

TEST(CounterAssignment, TooManyEventsForTheirCountersDoNotFit) {
  EXPECT_FALSE(assign_counters({kInbound, kInbound, kInbound}));
  EXPECT_EQ(crowded_counters({kInbound, kInbound, kInbound}), kInbound);
  EXPECT_FALSE(assign_counters({kOutbound, kAny, kOutbound, kOutbound}));
  EXPECT_EQ(crowded_counters({kOutbound, kAny, kOutbound, kOutbound}), kOutbound);
  EXPECT_FALSE(assign_counters({kTorOccupancy, kTorOccupancy}));
  EXPECT_EQ(crowded_counters({kTorOccupancy, kTorOccupancy}), kTorOccupancy);
  // Five events on four counters: only the whole box is crowded.
  EXPECT_FALSE(assign_counters({kAny, kAny, kAny, kAny, kInbound}));
  EXPECT_EQ(crowded_counters({kAny, kAny, kAny, kAny, kInbound}), kAny);
}

TEST(CounterAssignment, EventsThatFitLeaveNothingCrowded) {
  EXPECT_EQ(crowded_counters({kInbound, kInbound, kOutbound, kOutbound}), 0u);
  auto placed = assign_counters({kInbound, kInbound, kOutbound, kOutbound});
  ASSERT_TRUE(placed);
  EXPECT_EQ(*placed, (std::vector<unsigned>{0, 1, 2, 3}));
  placed = assign_counters({});
  ASSERT_TRUE(placed);
  EXPECT_TRUE(placed->empty());
}
