// CoreSight and DesignWare programming against the in-process simulator, on hand-built blocks:
// PMCR/PMCNTENSET/PMEVTYPER/filters, the cycle counter, 32-bit wrap with overflow flags, hi-lo-hi
// 64-bit counters, the RAS DES time-based and lane counters, and a byte-for-byte restore.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/coresight/coresight_unit.h"
#include "pmukit/families/designware/designware_regs.h"
#include "pmukit/families/designware/designware_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/session.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/error.h"
#include "support/machines.h"
#include "support/register_image.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

constexpr std::uint64_t kBase0 = 0x1'0000'0000, kBase1 = 0x1'0001'0000;

discovery::PmuUnit coresight_unit(unsigned counters, unsigned width, bool dual_page, bool atomic) {
  discovery::PmuUnit u;
  u.name = "nvidia_scf_pmu_0";
  u.pmu_kind = "cs_test";
  u.socket = 0;
  discovery::CoreSightUnit cs;
  cs.base0 = kBase0;
  cs.base1 = dual_page ? kBase1 : kBase0;
  cs.atomic64 = atomic;
  using Pmcfgr = regs::coresight::Pmcfgr;
  cs.pmcfgr = Pmcfgr::N::put(counters - 1) | Pmcfgr::Size::put(width - 1) | Pmcfgr::Cc::put(1);
  cs.has_cycle_counter = true;
  u.num_counters = counters;
  u.counter_width = width;
  u.set_detail(cs);
  return u;
}

discovery::PmuUnit dwc_unit() {
  discovery::PmuUnit u;
  u.name = "dwc_rootport_b000";
  u.pmu_kind = "dwc_pcie";
  discovery::DwcUnit d;
  d.root_port = *Bdf::parse("0000:b0:00.0");
  d.vsec_offset = 0x374;
  u.set_detail(d);
  return u;
}

struct Rig {
  test::TempDir dir;
  std::unique_ptr<Machine> machine;
  discovery::Inventory inv;
  std::unique_ptr<sim::Simulator> sim;

  Rig(std::vector<discovery::PmuUnit> units, std::vector<std::string> rates) {
    snapshot::SnapshotBuilder b(dir.path());
    for (const auto& u : units) {
      if (const auto* cs = u.as<discovery::CoreSightUnit>()) {
        b.write_phys32(cs->base0 + regs::coresight::Pmcfgr::offset, static_cast<std::uint32_t>(cs->pmcfgr.raw));
        b.write_phys32(cs->base1 + 0xffc, 0);  // page 1 exists
      } else {
        b.add_pci_device(test::dwc_root_port(u.as<discovery::DwcUnit>()->root_port));
      }
    }
    machine = std::make_unique<Machine>(MachineOptions{dir.path()});
    inv.units = std::move(units);
    auto r = sim::Rates::defaults();
    for (const auto& rule : rates) r.add_rule(rule);
    sim = std::make_unique<sim::Simulator>(*machine, inv, r);
  }
  std::unique_ptr<pmu::DirectSession> session(std::vector<syntax::EncodedEvent> events) {
    pmu::SessionOptions o;
    o.settle = sim.get();
    return std::make_unique<pmu::DirectSession>(*machine, std::vector<pmu::UnitEvents>{{&inv.units[0], events}},
                                                platform::Database::builtin(), o);
  }
};

syntax::EncodedEvent ev(std::uint64_t config, std::uint64_t config1 = 0) {
  syntax::EncodedEvent e;
  e.config = config;
  e.config1 = config1;
  return e;
}

}  // namespace

TEST(CoreSightDriver, EventsAndTheCycleCounterCountAndRestore) {
  Rig rig({coresight_unit(8, 32, true, false)}, {"cs_test:0x1a5=100000000", "cycles=1000000000"});
  auto before = test::register_image(*rig.machine, rig.inv);
  {
    auto s = rig.session({ev(0x1a5), ev(1ull << 32), ev(0x1a6, 0xff)});
    pmu::RegisterIo io(*rig.machine);
    io.map_block(kBase0, 0x1000);
    EXPECT_EQ(io.read(pmu::mmio32(kBase0 + regs::coresight::PMEVTYPER + 4)), 0x1a6u);
    EXPECT_EQ(io.read(pmu::mmio32(kBase0 + regs::coresight::PMEVFILTR + 4)), 0xffu);  // config1 -> PMEVFILTR
    s->start();
    EXPECT_EQ(io.read(pmu::mmio32(kBase0 + regs::coresight::PMCNTENSET)), 0x80000003u);  // counters 0, 1 and 31
    rig.sim->step(1'000'000'000);
    auto v = s->sample();
    EXPECT_EQ(v[0][0].delta, 100'000'000u);
    EXPECT_EQ(v[0][1].delta, 1'000'000'000u);  // the cycle counter, index 31
    EXPECT_EQ(v[0][2].delta, 1'000'000u);      // the default rate
  }
  rig.sim->step(1'000'000'000);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.inv)), "");
}

TEST(CoreSightDriver, ThirtyTwoBitCountersWrapAndOverflowFlagsCatchMissedWraps) {
  Rig rig({coresight_unit(4, 32, false, false)}, {"cycles=1000000000"});
  auto before = test::register_image(*rig.machine, rig.inv);
  {
    auto s = rig.session({ev(1ull << 32)});
    s->start();
    std::uint64_t total = 0;
    bool wrapped = false;
    for (int i = 0; i < 6; ++i) {  // 2^32 cycles take 4.29 s
      rig.sim->step(1'000'000'000);
      auto v = s->sample()[0][0];
      EXPECT_FALSE(v.lost);
      wrapped = wrapped || v.wrapped;
      total = v.total;
    }
    EXPECT_TRUE(wrapped);
    EXPECT_EQ(total, 6'000'000'000u);
    rig.sim->step(10'000'000'000);  // two wraps between reads: the flag shows the count is short
    EXPECT_TRUE(s->sample()[0][0].lost);
  }
  rig.sim->step(0);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.inv)), "");
}

TEST(CoreSightDriver, WideCountersReadHiLoHi) {
  Rig rig({coresight_unit(8, 64, true, false)}, {"cs_test:0x7=5000000000"});
  auto s = rig.session({ev(0x7)});
  s->start();
  rig.sim->step(3'000'000'000);  // 1.5e10: the high word is in use
  EXPECT_EQ(s->sample()[0][0].delta, 15'000'000'000u);
}

TEST(CoreSightDriver, MoreEventsThanCountersIsAnError) {
  Rig rig({coresight_unit(4, 32, false, true)}, {});
  try {
    rig.session({ev(1), ev(2), ev(3), ev(4)});  // 3 event counters + the cycle counter
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("4 events but the block has 3 counters and a cycle counter"),
              std::string::npos)
        << e.what();
  }
}

TEST(DwcDriver, TimeBasedPayloadCountsBytesAndLaneEventsCount) {
  Rig rig({dwc_unit()}, {"dwc_pcie:0x21=33900000", "dwc_pcie:0x600=1000"});
  auto before = test::register_image(*rig.machine, rig.inv);
  {
    auto s = rig.session({ev(0x21), ev(0x600 | 1u << 16)});  // rx payload (time-based), tx ack DLLPs (lane 0)
    s->start();
    rig.sim->step(2'000'000'000);
    auto v = s->sample()[0];
    EXPECT_EQ(v[0].delta, 33'900'000u * 2 * 16);  // 16-byte units, reported in bytes as the kernel does
    EXPECT_EQ(v[1].delta, 2'000u);
  }
  rig.sim->step(1'000'000'000);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.inv)), "");
}

// Three lane events of one root port and its time-based event at once (Linux dwc_pcie_pmu.c since
// 71396cfac97d counts group 6/7 lane events in parallel): each count is its own rate times the
// time, read after its select, in every read; then the registers come back byte for byte.
TEST(DwcDriver, LaneEventsOfOneRootPortCountInParallel) {
  Rig rig({dwc_unit()},
          {"dwc_pcie:0x700=1000000", "dwc_pcie:0x70c=250000", "dwc_pcie:0x602=3000", "dwc_pcie:0x21=33900000"});
  auto before = test::register_image(*rig.machine, rig.inv);
  {
    // tx_memory_write lane 0, rx_memory_read lane 1, rx_ack_dllp lane 3 (the kernel's event table),
    // and rx payload on the time-based counter.
    auto s =
        rig.session({ev(0x700 | 1u << 16), ev(0x70c | 1u << 16 | 1u << 20), ev(0x602 | 1u << 16 | 3u << 20), ev(0x21)});
    s->start();
    rig.sim->step(2'000'000'000);
    auto v = s->sample()[0];
    EXPECT_EQ(v[0].delta, 2'000'000u);
    EXPECT_EQ(v[1].delta, 500'000u);
    EXPECT_EQ(v[2].delta, 6'000u);
    EXPECT_EQ(v[3].delta, 33'900'000u * 2 * 16);
    rig.sim->step(1'000'000'000);
    v = s->sample()[0];
    EXPECT_EQ(v[0].delta, 1'000'000u);
    EXPECT_EQ(v[1].delta, 250'000u);
    EXPECT_EQ(v[2].delta, 3'000u);
    EXPECT_EQ(v[0].total, 3'000'000u);
    s->stop();
    rig.sim->step(1'000'000'000);  // stopped: nothing more counts
    v = s->sample()[0];
    EXPECT_EQ(v[0].delta, 0u);
    EXPECT_EQ(v[2].delta, 0u);
  }
  rig.sim->step(1'000'000'000);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.inv)), "");
}

// How often a run must read: half a 32-bit counter's wrap time at 4 counts/ns, in whole
// milliseconds; 64-bit counters alone are read at least once a minute, as the kernel polls its
// uncore counters. The narrower lane counters (the guide's event counter groups #0-#4: 4 and 8
// bits) wrap sooner than any read period: they are read every millisecond, the floor.
TEST(DwcDriver, LaneCounterWidthBoundsTheReadPeriod) {
  Rig rig({dwc_unit()}, {});
  EXPECT_EQ(rig.session({ev(0x21)})->max_read_period_ns(), 60'000'000'000u);
  EXPECT_EQ(rig.session({ev(0x21), ev(0x600 | 1u << 16)})->max_read_period_ns(),
            (1ull << 32) / 4 / 2 / 1'000'000 * 1'000'000);
  EXPECT_EQ(rig.session({ev(0x21), ev(0x000 | 1u << 16)})->max_read_period_ns(), 1'000'000u);  // group 0: 4 bits
  EXPECT_EQ(rig.session({ev(0x21), ev(0x106 | 1u << 16)})->max_read_period_ns(), 1'000'000u);  // group 1: 8 bits
}

// The Alibaba Yitian 710 PCIe PMU guide's event counter groups #0 (4-bit, per lane) and #1 (8-bit):
// the simulated counters wrap at 16 and 256, EVENT_CNT_DATA shows the low bits, and a run that
// reads every millisecond (the read period such counters force) counts through the wraps.
TEST(DwcDriver, NarrowLaneCountersWrapAtTheirGroupWidth) {
  Rig rig({dwc_unit()}, {"dwc_pcie:0x002=100", "dwc_pcie:0x106=1000"});  // decode error, receiver error
  const auto& u = rig.inv.units[0];
  const auto* d = u.as<discovery::DwcUnit>();
  const pmu::Reg ctl = pmu::config32(d->root_port, d->vsec_offset + regs::dwc::EventCntCtl::offset);
  const pmu::Reg data = pmu::config32(d->root_port, d->vsec_offset + regs::dwc::EventCntData::offset);
  pmu::RegisterIo io(*rig.machine);
  {
    auto s = rig.session({ev(0x002 | 1u << 16)});
    s->start();
    std::uint64_t total = 0;
    for (int ms = 0; ms < 1000; ++ms) {
      rig.sim->step(1'000'000);
      total += s->sample()[0][0].delta;
    }
    EXPECT_EQ(total, 100u);               // 100 errors in a second, through 6 wraps
    EXPECT_EQ(io.read(data), 100u % 16);  // the 4-bit counter shows 100 mod 16
    EXPECT_EQ(regs::dwc::EventCntCtl::Select::get(read_as<regs::dwc::EventCntCtl>(io, ctl)), 0x002u);
  }
  {
    auto s = rig.session({ev(0x106 | 1u << 16)});
    s->start();
    std::uint64_t total = 0;
    for (int ms = 0; ms < 1000; ++ms) {
      rig.sim->step(1'000'000);
      total += s->sample()[0][0].delta;
    }
    EXPECT_EQ(total, 1000u);
    EXPECT_EQ(io.read(data), 1000u % 256);
  }
}

TEST(DwcDriver, OneCounterOfEachKind) {
  Rig rig({dwc_unit()}, {});
  EXPECT_THROW(rig.session({ev(0x20), ev(0x21)}), UsageError);
  EXPECT_THROW(rig.session({ev(0x600 | 2u << 16)}), UsageError);  // type 2 does not exist
}
