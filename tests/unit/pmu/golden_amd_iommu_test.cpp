// Golden write trace of an AMD IOMMU counter. Values are written from Linux
// arch/x86/events/amd/iommu.c and iommu.h, and drivers/iommu/amd/init.c: the first event takes
// bank 0 counter 0 (get_next_avail_iommu_bnk_cntr), whose registers are at MMIO base +
// ((0x40 | bank) << 12 | counter << 8 | function) (iommu_pc_get_set_reg): COUNTER 0x00,
// COUNTER_SRC 0x08, PASID_MATCH 0x10, DOMID_MATCH 0x18, DEVID_MATCH 0x20. perf_iommu_start ->
// perf_iommu_enable_event writes COUNTER_SRC = csource, DEVID_MATCH = devid | devid_mask << 32
// (| bit 31 when non-zero), PASID_MATCH, DOMID_MATCH the same way, then COUNTER = 0 ("to account
// for power-gating, which prevents write to the counter": a counter whose source is 0 drops writes
// and reads 0); perf_iommu_disable_event writes COUNTER_SRC = 0. Every value is masked to 48 bits
// and written as two 32-bit stores, the low dword first.
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/util/error.h"
#include "support/spec_rig.h"

using namespace pmukit;
using test::event;
using test::mmio_store;

namespace {

constexpr std::uint64_t kBase = 0xf0000000, kCounter0 = kBase + 0x40000;

nlohmann::json spec() {
  // Counter 0's DOMID_MATCH holds a filter from before the run, its source 0 (not counting, so
  // its COUNTER is power-gated and holds 0): the filter must be what it was afterwards.
  return {
      {"name", "amd-iommu-golden"},
      {"cpuinfo", {{"vendor", "AuthenticAMD"}, {"family", 25}, {"model", 17}}},
      {"topology", {{"sockets", 1}, {"dies_per_socket", 1}, {"cpus_per_die", 2}}},
      {"amd_iommus",
       {{{"bdf", "0000:00:00.2"}, {"base", "0xf0000000"}, {"writes", {{{"at", "0x40018"}, {"u32", "0x80000007"}}}}}}}};
}

}  // namespace

// Where pmukit differs: the kernel reads the counter, then disables it (perf_iommu_stop), and
// restores nothing; pmukit's stop() writes nothing, so that its last read, after stop(), still
// sees the count, and restore turns the source off and puts the match registers and the source
// back. COUNTER is not written back: its saved source is 0, so it was power-gated (read 0) and
// would drop the write.
TEST(GoldenTrace, AmdIommuCounterEnableDisableAndRestore) {
  test::SpecRig rig(spec());
  // mem_trans_total (csource 0x05) of requester 0x0010 exactly, in domain 2.
  auto trace = test::run_fixed_events(
      *rig.machine,
      {{&rig.unit("amd_iommu_0"), {event(0x05 | 0x0010u << 8 | std::uint64_t{0x2} << 24, 0xffff)}}});  // devid_mask
  const std::vector<pmu::Access> want = {
      // start: perf_iommu_enable_event, then the counter from 0
      mmio_store(kCounter0 + 0x08, 32, 0x5),  // COUNTER_SRC = csource
      mmio_store(kCounter0 + 0x0c, 32, 0x0),
      mmio_store(kCounter0 + 0x20, 32, 0x80000010),  // DEVID_MATCH = 0x10 | 0xffff << 32 | bit 31
      mmio_store(kCounter0 + 0x24, 32, 0xffff),
      mmio_store(kCounter0 + 0x10, 32, 0x0),  // PASID_MATCH = 0 (nothing set: no bit 31)
      mmio_store(kCounter0 + 0x14, 32, 0x0),
      mmio_store(kCounter0 + 0x18, 32, 0x80000002),  // DOMID_MATCH = 2 | bit 31
      mmio_store(kCounter0 + 0x1c, 32, 0x0),
      mmio_store(kCounter0 + 0x00, 32, 0x0),  // COUNTER = 0
      mmio_store(kCounter0 + 0x04, 32, 0x0),
      // stop: nothing. Restore: perf_iommu_disable_event (the source off), then the saved match
      // registers and source.
      mmio_store(kCounter0 + 0x08, 32, 0x0),
      mmio_store(kCounter0 + 0x0c, 32, 0x0),
      mmio_store(kCounter0 + 0x20, 32, 0x0),
      mmio_store(kCounter0 + 0x24, 32, 0x0),
      mmio_store(kCounter0 + 0x10, 32, 0x0),
      mmio_store(kCounter0 + 0x14, 32, 0x0),
      mmio_store(kCounter0 + 0x18, 32, 0x80000007),
      mmio_store(kCounter0 + 0x1c, 32, 0x0),
      mmio_store(kCounter0 + 0x08, 32, 0x0),
      mmio_store(kCounter0 + 0x0c, 32, 0x0),
  };
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

// The second event takes the next counter of bank 0 (get_next_avail_iommu_bnk_cntr: bank by bank,
// counter by counter): counter 1's source at +0x108.
TEST(GoldenTrace, AmdIommuSecondEventTakesCounterOne) {
  test::SpecRig rig(spec());
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit("amd_iommu_0"), {event(0x11), event(0x13)}}});
  ASSERT_GE(trace.size(), 12u);
  EXPECT_EQ(test::show(trace[10].access), test::show(mmio_store(kCounter0 + 0x108, 32, 0x13)));
}

// A counter whose source is set counts for someone else (the kernel's amd_iommu PMU: perf_iommu_
// enable_event leaves COUNTER_SRC set while it counts): the unit is busy, and nothing is written.
TEST(AmdIommuDriver, ACounterWithItsSourceSetIsBusy) {
  auto s = spec();
  s["amd_iommus"][0]["writes"].push_back({{"at", "0x40108"}, {"u32", "0x7"}});  // bank 0 counter 1: source 7
  test::SpecRig rig(s);
  std::vector<pmu::WriteRecord> trace;
  pmu::SessionOptions options;
  options.trace = &trace;
  try {
    pmu::DirectSession session(*rig.machine, {{&rig.unit("amd_iommu_0"), {event(0x05)}}}, platform::Database::builtin(),
                               options);
    ADD_FAILURE() << "a busy IOMMU was programmed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("counter 1 counts event source 0x7"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(trace.empty());
}

// A counter taken with --force from someone counting on it (source 7, a count of 0x56_00001234):
// stop() writes nothing; restore turns the source off, puts the match registers and the source
// back, and then the saved count, after the source as perf_iommu_start writes COUNTER (a counter
// whose source is 0 would drop the write).
TEST(AmdIommuDriver, AForcedCounterGetsItsCountBackAfterItsSource) {
  auto s = spec();
  for (const auto& [at, v] : {std::pair{"0x40000", "0x1234"}, {"0x40004", "0x56"}, {"0x40008", "0x7"}})
    s["amd_iommus"][0]["writes"].push_back({{"at", at}, {"u32", v}});
  test::SpecRig rig(s);
  std::vector<pmu::WriteRecord> trace;
  pmu::SessionOptions options;
  options.trace = &trace;
  options.force = true;
  pmu::DirectSession session(*rig.machine, {{&rig.unit("amd_iommu_0"), {event(0x05)}}}, platform::Database::builtin(),
                             options);
  session.start();
  session.sample();
  const std::size_t started = trace.size();
  session.stop();
  EXPECT_EQ(trace.size(), started);  // stop(): nothing written, the sources stay set
  session.restore();
  EXPECT_TRUE(session.restore_errors().empty());
  const std::vector<pmu::Access> want = {
      mmio_store(kCounter0 + 0x08, 32, 0x0),        mmio_store(kCounter0 + 0x0c, 32, 0x0),
      mmio_store(kCounter0 + 0x20, 32, 0x0),        mmio_store(kCounter0 + 0x24, 32, 0x0),
      mmio_store(kCounter0 + 0x10, 32, 0x0),        mmio_store(kCounter0 + 0x14, 32, 0x0),
      mmio_store(kCounter0 + 0x18, 32, 0x80000007), mmio_store(kCounter0 + 0x1c, 32, 0x0),
      mmio_store(kCounter0 + 0x08, 32, 0x7),        mmio_store(kCounter0 + 0x0c, 32, 0x0),
      mmio_store(kCounter0 + 0x00, 32, 0x1234),     mmio_store(kCounter0 + 0x04, 32, 0x56),
  };
  ASSERT_EQ(trace.size(), started + want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(test::show(trace[started + i].access), test::show(want[i])) << "restore store " << i;
}

// A multiplexed unit's next set: stop() writes nothing (the last set's counts were read at its
// turn), reset() turns the last set's sources off (perf_iommu_disable_event), and the next set is
// enabled as perf_iommu_start does.
TEST(AmdIommuDriver, ReprogrammingTurnsTheLastSetsSourcesOff) {
  test::SpecRig rig(spec());
  std::vector<pmu::WriteRecord> trace;
  pmu::SessionOptions options;
  options.trace = &trace;
  pmu::DirectSession session(*rig.machine, {{&rig.unit("amd_iommu_0"), {event(0x11), event(0x13)}}},
                             platform::Database::builtin(), options);
  session.start();
  session.sample();
  const std::size_t started = trace.size();
  session.reprogram(0, {event(0x05)});
  ASSERT_GE(trace.size(), started + 5);
  const std::vector<pmu::Access> want = {
      mmio_store(kCounter0 + 0x08, 32, 0x0),  mmio_store(kCounter0 + 0x0c, 32, 0x0),
      mmio_store(kCounter0 + 0x108, 32, 0x0), mmio_store(kCounter0 + 0x10c, 32, 0x0),
      mmio_store(kCounter0 + 0x08, 32, 0x5),
  };
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(test::show(trace[started + i].access), test::show(want[i])) << "store " << i;
  session.stop();
  session.restore();
  EXPECT_TRUE(session.restore_errors().empty());
}
