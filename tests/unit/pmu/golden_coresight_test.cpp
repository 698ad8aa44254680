// Golden write traces of the CoreSight PMU driver with the NVIDIA filters: Grace PCIe (root_port),
// Grace SCF (no filter), Tegra410 PCIE (the BDF filter), each with the cycle counter. Offsets and
// bits are written from Linux drivers/perf/arm_cspmu/arm_cspmu.h (PMEVTYPER 0x400, PMCCFILTR
// 0x47c, PMEVFILT2R 0x800, PMEVFILTR 0xa00, PMCNTENSET 0xc00, PMCNTENCLR 0xc20, PMOVSCLR 0xc80,
// PMCR 0xe04 with E bit 0, P bit 1, C bit 2; counter 31 is the cycle counter), arm_cspmu.c
// (arm_cspmu_set_event, arm_cspmu_enable_counter, arm_cspmu_start_counters) and nvidia_cspmu.c
// (nv_cspmu_event_filter, nv_cspmu_set_ev_filter, nv_cspmu_set_cc_filter, pcie_v2_pmu_event_filter;
// NV_PCIE_FILTER_ID_MASK 0x3ff, NV_PCIE_V2_FILTER_DEFAULT 0xff, NV_PCIE_V2_FILTER2_DEFAULT 0x1f).
//
// Where pmukit differs from the kernel, on purpose: it resets the counters with PMCR.P/C when
// programming starts (the kernel writes a start value into each counter), keeps PMCR's other bits,
// enables no overflow interrupt (no PMINTENSET: nothing in userspace would take it), sets every
// counter's PMCNTENSET bit in one write per bank so all start together, writes PMEVFILT2R 0 where
// nvidia_cspmu leaves it, and restores every register it saved afterwards.
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/multiplex.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/snapshot/builder.h"
#include "support/test_support.h"

using namespace pmukit;
using test::event;
using test::mmio_store;

namespace {

constexpr std::uint64_t kBase0 = 0x1'0000'0000, kBase1 = 0x1'0001'0000;
constexpr std::uint64_t kCycles = 1ull << 32;  // ARM_CSPMU_EVT_CYCLES_DEFAULT

struct Block {
  std::string kind;
  unsigned counters;  // logical, the cycle counter included
  unsigned width;
  bool dual_page;
  bool atomic;
  std::uint32_t pmcr = 0;  // what PMCR holds before the run
};

struct Rig {
  test::TempDir dir;
  discovery::PmuUnit unit;
  std::unique_ptr<Machine> machine;

  explicit Rig(const Block& b) {
    discovery::CoreSightUnit cs;
    cs.base0 = kBase0;
    cs.base1 = b.dual_page ? kBase1 : kBase0;
    cs.atomic64 = b.atomic;
    cs.has_cycle_counter = true;
    unit.family = discovery::Family::CoreSight;
    unit.name = "cs_" + b.kind;
    unit.pmu_kind = b.kind;
    unit.num_counters = b.counters;
    unit.counter_width = b.width;
    unit.detail = cs;
    snapshot::SnapshotBuilder builder(dir.path());
    builder.write_phys32(kBase0 + 0xe04, b.pmcr);
    builder.write_phys32(kBase0 + 0xffc, 0);  // both pages exist
    builder.write_phys32(kBase1 + 0xffc, 0);
    machine = std::make_unique<Machine>(MachineOptions{dir.path()});
  }
};

// pmukit's restore after the run: PMCR without E and our counters disabled, then every saved
// register back (per counter: type, filter, filter 2, the counter itself), PMCR last.
void restore_stores(std::vector<pmu::Access>& t, const Block& b, std::uint32_t enabled) {
  const std::uint64_t page1 = b.dual_page ? kBase1 : kBase0;
  t.push_back(mmio_store(kBase0 + 0xe04, 32, b.pmcr & ~1u));
  t.push_back(mmio_store(kBase0 + 0xc20, 32, enabled));
  auto counter = [&](unsigned n) {
    if (b.width <= 32) return t.push_back(mmio_store(page1 + 4 * n, 32, 0));
    if (b.atomic) return t.push_back(mmio_store(page1 + 8 * n, 64, 0));
    t.push_back(mmio_store(page1 + 8 * n, 32, 0));  // lo_hi_writeq: the low dword first
    t.push_back(mmio_store(page1 + 8 * n + 4, 32, 0));
  };
  for (unsigned n = 0; n + 1 < b.counters; ++n) {
    t.push_back(mmio_store(kBase0 + 0x400 + 4 * n, 32, 0));
    t.push_back(mmio_store(kBase0 + 0xa00 + 4 * n, 32, 0));
    t.push_back(mmio_store(kBase0 + 0x800 + 4 * n, 32, 0));
    counter(n);
  }
  t.push_back(mmio_store(kBase0 + 0x47c, 32, 0));
  counter(31);
  t.push_back(mmio_store(kBase0 + 0xe04, 32, b.pmcr));
}

}  // namespace

TEST(GoldenTrace, GracePcieRootPortFilterAndTheCycleCounter) {
  const Block b{"nvidia_grace_pcie", 4, 64, true, false, 0x10};  // PMCR.X (bit 4) set before the run
  Rig rig(b);
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit,
                                                      {event(0x0, 0x100),  // rd_bytes_loc,root_port=0x100
                                                       event(0x2),         // wr_bytes_loc: every root port
                                                       event(kCycles)}}});
  std::vector<pmu::Access> want = {
      mmio_store(kBase0 + 0xe04, 32, 0x16),   // PMCR: P and C reset the counters, E clear, X kept
      mmio_store(kBase0 + 0x400, 32, 0x0),    // PMEVTYPER0 = config[31:0] (arm_cspmu_set_event)
      mmio_store(kBase0 + 0xa00, 32, 0x100),  // PMEVFILTR0 = config1 & 0x3ff (nv_cspmu_set_ev_filter)
      mmio_store(kBase0 + 0x800, 32, 0x0),    // PMEVFILT2R0
      mmio_store(kBase0 + 0x404, 32, 0x2),
      mmio_store(kBase0 + 0xa04, 32, 0x3ff),  // root_port 0 means all 10 root ports (filter_default_val)
      mmio_store(kBase0 + 0x804, 32, 0x0),
      mmio_store(kBase0 + 0x47c, 32, 0x3ff),       // PMCCFILTR: nv_cspmu_set_cc_filter, the same default
      mmio_store(kBase0 + 0xc00, 32, 0x80000003),  // PMCNTENSET: counters 0, 1 and 31 at once
      mmio_store(kBase0 + 0xe04, 32, 0x11),        // PMCR.E (arm_cspmu_start_counters), X kept
      mmio_store(kBase0 + 0xc20, 32, 0x80000003),  // stop: PMCNTENCLR (arm_cspmu_disable_counter)
  };
  restore_stores(want, b, 0x80000003);
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

TEST(GoldenTrace, GraceScfWritesItsFiltersZero) {
  const Block b{"nvidia_grace_scf", 6, 32, false, false};
  Rig rig(b);
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit, {event(0x1a5), event(kCycles)}}});  // cmem_rd_data
  std::vector<pmu::Access> want = {
      mmio_store(kBase0 + 0xe04, 32, 0x6),        mmio_store(kBase0 + 0x400, 32, 0x1a5),
      mmio_store(kBase0 + 0xa00, 32, 0x0),  // SCF: filter_mask 0, filter_default_val 0
      mmio_store(kBase0 + 0x800, 32, 0x0),        mmio_store(kBase0 + 0x47c, 32, 0x0),
      mmio_store(kBase0 + 0xc00, 32, 0x80000001), mmio_store(kBase0 + 0xe04, 32, 0x1),
      mmio_store(kBase0 + 0xc20, 32, 0x80000001),
  };
  restore_stores(want, b, 0x80000001);
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

TEST(GoldenTrace, Tegra410PcieBdfFilter) {
  const Block b{"nvidia_t410_pcie", 4, 64, true, true};
  Rig rig(b);
  // src_bdf=0x0180,src_bdf_en=1: BDF 01:80.0 ((bus << 8) + (device << 3) + function), as the
  // nvidia-tegra410-pmu.rst example counts it.
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit, {event(0x0, 0x1018000), event(kCycles)}}});
  std::vector<pmu::Access> want = {
      mmio_store(kBase0 + 0xe04, 32, 0x6),        mmio_store(kBase0 + 0x400, 32, 0x0),
      mmio_store(kBase0 + 0xa00, 32, 0x1018000),  // src_bdf [23:8], src_bdf_en bit 24 (NV_PCIE_V2_FILTER_BDF_*)
      mmio_store(kBase0 + 0x800, 32, 0x1f),       // no destination asked: all five (NV_PCIE_V2_FILTER2_DEFAULT)
      mmio_store(kBase0 + 0x47c, 32, 0xff),       // cycles: every root port (NV_PCIE_V2_FILTER_DEFAULT)
      mmio_store(kBase0 + 0xc00, 32, 0x80000001), mmio_store(kBase0 + 0xe04, 32, 0x1),
      mmio_store(kBase0 + 0xc20, 32, 0x80000001),
  };
  restore_stores(want, b, 0x80000001);
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

// The Tegra410 guide's read-latency group on one BDF: {rd_req on BDF 0x4100, rd_cum_outs, cycles}.
// The member without a filter takes the leader's (pcie_v2_pmu_event_filter); the cycles event does
// not: nv_cspmu_set_cc_filter writes PMCCFILTR from nv_cspmu_event_filter, the event's own config1
// (0 here) or filter_default_val, NV_PCIE_V2_FILTER_DEFAULT = 0xff.
TEST(GoldenTrace, Tegra410PcieBdfGroupLeavesTheCycleCounterFilterAtItsDefault) {
  const Block b{"nvidia_t410_pcie", 4, 64, true, true};
  Rig rig(b);
  constexpr std::uint64_t kBdf = 0x4100ull << 8 | 1ull << 24;  // src_bdf=0x4100,src_bdf_en=1
  std::vector<syntax::EncodedEvent> events{event(0x2, kBdf), event(0x4), event(kCycles)};
  {
    pmu::Preflight preflight(*rig.machine, platform::Database::builtin());
    pmu::inherit_group_filters(preflight, rig.unit, events, {0, 0, 0});
  }
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit, events}});
  std::vector<pmu::Access> want = {
      mmio_store(kBase0 + 0xe04, 32, 0x6),
      mmio_store(kBase0 + 0x400, 32, 0x2),
      mmio_store(kBase0 + 0xa00, 32, kBdf),  // the leader's BDF filter
      mmio_store(kBase0 + 0x800, 32, 0x1f),
      mmio_store(kBase0 + 0x404, 32, 0x4),
      mmio_store(kBase0 + 0xa04, 32, kBdf),  // the member takes it (pcie_v2_pmu_event_filter)
      mmio_store(kBase0 + 0x804, 32, 0x1f),
      mmio_store(kBase0 + 0x47c, 32, 0xff),  // cycles: its own filter, 0, is every root port
      mmio_store(kBase0 + 0xc00, 32, 0x80000003),
      mmio_store(kBase0 + 0xe04, 32, 0x1),
      mmio_store(kBase0 + 0xc20, 32, 0x80000003),
  };
  restore_stores(want, b, 0x80000003);
  EXPECT_EQ(test::trace_difference(trace, want), "");
}
