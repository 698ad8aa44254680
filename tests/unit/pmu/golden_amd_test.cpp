// Golden write traces of the AMD uncore driver (L3, Data Fabric and UMC counters over MSRs). The
// values are written from Linux arch/x86/events/amd/uncore.c and arch/x86/include/asm/perf_event.h,
// not from pmukit's register map:
//   - counter i's PERF_CTL at msr_base + 2i and PERF_CTR at msr_base + 2i + 1 (amd_uncore_add);
//     MSR_F16H_L2I_PERF_CTL 0xc0010230 (L3), MSR_F15H_NB_PERF_CTL 0xc0010240 (DF),
//     MSR_F19H_UMC_PERF_CTL 0xc0010800 (UMC);
//   - start: PERF_CTR = the saved count, then PERF_CTL = hwc->config | ARCH_PERFMON_EVENTSEL_ENABLE
//     (1 << 22); UMC: | AMD64_PERFMON_V2_ENABLE_UMC (1 << 31); stop: PERF_CTL = hwc->config;
//   - hwc->config: attr.config & AMD64_RAW_EVENT_MASK_NB (0xf0000ffff: event 7:0 and 35:32, umask
//     15:8); PerfMonV2 DF: & AMD64_PERFMON_V2_RAW_EVENT_MASK_NB (adds 37:36 and 27:24); UMC:
//     & GENMASK(9, 0); L3 family 19h without a thread mask: | AMD64_L3_F19H_THREAD_MASK (3 << 56) |
//     AMD64_L3_EN_ALL_SLICES (1 << 46) | AMD64_L3_EN_ALL_CORES (1 << 47); family 17h: the slice mask
//     (0xf << 48) and thread mask (0xff << 56) when the user gives none.
// Where pmukit differs: the unit is cleared first (every control, then every count, to 0), the
// count is zeroed when the control is written (the kernel writes it at start), and restore
// disables every control, then puts back every count and every control.
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/families/amd/amd_unit.h"
#include "pmukit/snapshot/builder.h"
#include "support/test_support.h"

using namespace pmukit;
using discovery::AmdUnit;
using test::event;
using test::msr_store;

namespace {

struct AmdRig {
  test::TempDir dir;
  discovery::PmuUnit unit;
  std::unique_ptr<Machine> machine;
  AmdRig(AmdUnit::Kind kind, unsigned family, bool v2, std::uint32_t base, unsigned counters, int cpu) {
    AmdUnit a;
    a.kind = kind, a.cpu_family = family, a.perfmon_v2 = v2, a.msr_base = base, a.cpu = cpu, a.cpus = {cpu};
    a.l3_selection =
        family <= 0x18 ? AmdUnit::L3Selection::SliceAndThreadMasks : AmdUnit::L3Selection::ThreadMaskAndEnables;
    unit.name = kind == AmdUnit::Kind::L3 ? "amd_l3" : kind == AmdUnit::Kind::Df ? "amd_df" : "amd_umc_0";
    unit.pmu_kind = kind == AmdUnit::Kind::L3   ? "amd_l3_zen4"
                    : kind == AmdUnit::Kind::Df ? "amd_df_zen4"
                                                : "amd_umc_zen4";
    unit.num_counters = counters;
    unit.counter_width = 48;
    unit.set_detail(a);
    snapshot::SnapshotBuilder b(dir.path());
    for (unsigned i = 0; i < 2 * counters; ++i) b.set_msr(cpu, base + i, 0);
    machine = std::make_unique<Machine>(MachineOptions{dir.path()});
  }
};

// The stores every run makes around the programmed ones: clear every control and count first;
// at the end disable every control, then every count and every control back to 0 (as saved).
std::vector<pmu::Access> cleared(std::uint32_t base, unsigned counters, int cpu) {
  std::vector<pmu::Access> w;
  for (unsigned i = 0; i < counters; ++i) w.push_back(msr_store(base + 2 * i, 0, cpu));
  for (unsigned i = 0; i < counters; ++i) w.push_back(msr_store(base + 2 * i + 1, 0, cpu));
  return w;
}
std::vector<pmu::Access> restored(std::uint32_t base, unsigned counters, int cpu) {
  std::vector<pmu::Access> w;
  for (unsigned i = 0; i < counters; ++i) w.push_back(msr_store(base + 2 * i, 0, cpu));
  for (unsigned i = 0; i < counters; ++i) w.push_back(msr_store(base + 2 * i + 1, 0, cpu));
  for (unsigned i = 0; i < counters; ++i) w.push_back(msr_store(base + 2 * i, 0, cpu));
  return w;
}
void append(std::vector<pmu::Access>& to, const std::vector<pmu::Access>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

}  // namespace

// Zen 4 L3 (family 0x19): event 0x04 umask 0xff on counter 0 and event 0x01 umask 0x80 with an
// explicit thread mask and core 2 on counter 1, on CPU 8 (the CCX's first CPU).
TEST(GoldenTrace, AmdL3CountersOverMsrs) {
  AmdRig rig(AmdUnit::Kind::L3, 0x19, true, 0xc0010230, 6, 8);
  auto trace =
      test::run_fixed_events(*rig.machine, {{&rig.unit, {event(0xff04), event(0x8001 | 1ull << 56 | 2ull << 42)}}});
  std::vector<pmu::Access> want = cleared(0xc0010230, 6, 8);
  append(want,
         {msr_store(0xc0010231, 0, 8), msr_store(0xc0010230, 0x0300c0000000ff04, 8),  // all threads, slices, cores
          msr_store(0xc0010233, 0, 8), msr_store(0xc0010232, 0x0100080000008001, 8),  // thread 0 of core 2 only
          msr_store(0xc0010230, 0x0300c0000040ff04, 8), msr_store(0xc0010232, 0x0100080000408001, 8),    // start
          msr_store(0xc0010230, 0x0300c0000000ff04, 8), msr_store(0xc0010232, 0x0100080000008001, 8)});  // stop
  append(want, restored(0xc0010230, 6, 8));
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

// Family 0x17 (Zen 2) L3: the slice and thread masks are filled in, whole, when none is given.
TEST(GoldenTrace, AmdL3Family17hFillsSliceAndThreadMasks) {
  AmdRig rig(AmdUnit::Kind::L3, 0x17, false, 0xc0010230, 6, 0);
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit, {event(0x0106)}}});
  std::vector<pmu::Access> want = cleared(0xc0010230, 6, 0);
  append(want, {msr_store(0xc0010231, 0, 0), msr_store(0xc0010230, 0xff0f000000000106, 0),
                msr_store(0xc0010230, 0xff0f000000400106, 0), msr_store(0xc0010230, 0xff0f000000000106, 0)});
  append(want, restored(0xc0010230, 6, 0));
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

// Data Fabric: with PerfMonV2 the event's bits 37:36 and the unit mask's 27:24 are kept; without
// it (Zen 2/3) only event 35:32 and 7:0 and umask 15:8 -- the event format's bits 59-60 are dropped
// by AMD64_RAW_EVENT_MASK_NB, as the kernel drops them.
// One event on a DF of `counters` counters at 0xc0010240: its control word as the kernel keeps it.
void expect_df_trace(bool perfmon_v2, unsigned counters, std::uint64_t config, std::uint64_t kept) {
  AmdRig rig(AmdUnit::Kind::Df, 0x19, perfmon_v2, 0xc0010240, counters, 0);
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit, {event(config)}}});
  std::vector<pmu::Access> want = cleared(0xc0010240, counters, 0);
  append(want, {msr_store(0xc0010241, 0, 0), msr_store(0xc0010240, kept, 0),
                msr_store(0xc0010240, kept | 1ull << 22, 0), msr_store(0xc0010240, kept, 0)});
  append(want, restored(0xc0010240, counters, 0));
  EXPECT_EQ(test::trace_difference(trace, want), "") << (perfmon_v2 ? "PerfMonV2" : "before PerfMonV2");
}

TEST(GoldenTrace, AmdDataFabricMasksByPerfMonVersion) {
  const std::uint64_t config = 0x1800003f0f00ff1full;
  expect_df_trace(true, 16, config, 0x0000003f0f00ff1f);
  expect_df_trace(false, 4, config, 0x0000000f0000ff1f);
}

// UMC (PerfMonV2): the second active UMC of a socket with 4 counters each starts at
// MSR_F19H_UMC_PERF_CTL + 1 * 4 * 2; its enable bit is 31, and only config 9:0 is kept.
TEST(GoldenTrace, AmdUmcEnableBit31) {
  AmdRig rig(AmdUnit::Kind::Umc, 0x19, true, 0xc0010808, 4, 0);
  auto trace =
      test::run_fixed_events(*rig.machine, {{&rig.unit, {event(0x10a | 1ull << 22)}}});  // rdwrmask 1, event 0x0a
  std::vector<pmu::Access> want = cleared(0xc0010808, 4, 0);
  append(want, {msr_store(0xc0010809, 0, 0), msr_store(0xc0010808, 0x10a, 0), msr_store(0xc0010808, 0x8000010a, 0),
                msr_store(0xc0010808, 0x10a, 0)});
  append(want, restored(0xc0010808, 4, 0));
  EXPECT_EQ(test::trace_difference(trace, want), "");
}
