// Golden write traces of the DesignWare RAS DES driver (the lane and the time-based counter of a
// root port) and of the Tegra410 C2C and CMEM latency blocks. Values are written from Linux
// drivers/perf/dwc_pcie_pmu.c (DWC_PCIE_EVENT_CNT_CTL 0x8: event select [27:16], lane [11:8],
// enable [4:2] with PER_EVENT_OFF 1 / ON 3, clear [1:0] with PER_CLEAR 1; TIME_BASED_ANAL_CTL
// 0x10: report select [31:24], duration [15:8], timer start bit 0; dwc_pcie_pmu_event_add,
// dwc_pcie_pmu_lane_event_enable, dwc_pcie_pmu_time_based_event_enable), nvidia_t410_c2c_pmu.c
// (C2C_CTRL 0x864 in the broadcast region: 1 enables, 0 disables, nv_c2c_pmu_enable/disable) and
// nvidia_t410_cmem_latency_pmu.c (CMEM_LAT_CG_CTRL 0x800, CMEM_LAT_CTRL 0x808: 0 disable, 1
// enable, 2 clear; writeq; cmem_lat_pmu_enable/disable and the probe's clear).
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/families/designware/designware_unit.h"
#include "pmukit/families/tegra410/tegra410_unit.h"
#include "pmukit/snapshot/builder.h"
#include "support/machines.h"
#include "support/test_support.h"

using namespace pmukit;
using test::config_store;
using test::event;
using test::mmio_store;

namespace {

constexpr const char* kRootPort = "0000:b0:00.0";

struct DwcRig {
  test::TempDir dir;
  discovery::PmuUnit unit;
  std::unique_ptr<Machine> machine;
  DwcRig() {
    discovery::DwcUnit d;
    d.root_port = *Bdf::parse(kRootPort);
    d.vsec_offset = 0x374;  // the counters at +0x08..+0x1b: 0x37c..0x38f
    unit.name = "dwc_rootport_b000";
    unit.pmu_kind = "dwc_pcie";
    unit.set_detail(d);
    snapshot::SnapshotBuilder b(dir.path());
    b.add_pci_device(test::dwc_root_port(d.root_port));
    machine = std::make_unique<Machine>(MachineOptions{dir.path()});
  }
};

constexpr std::uint64_t kInstance0 = 0x2'0000'0000, kInstance1 = 0x2'0001'0000, kBroadcast = 0x2'0002'0000;

struct T410Rig {
  test::TempDir dir;
  discovery::PmuUnit unit;
  std::unique_ptr<Machine> machine;
  explicit T410Rig(bool cmem) {
    discovery::T410Unit t;
    t.instance_bases = {kInstance0, kInstance1};
    t.broadcast_base = kBroadcast;
    t.region_size = 0x1000;
    t.kind = cmem ? discovery::T410Unit::Kind::CmemLatency : discovery::T410Unit::Kind::C2c;
    unit.name = cmem ? "nvidia_cmem_latency_pmu_0" : "nvidia_nvlink_c2c_pmu_0";
    unit.pmu_kind = cmem ? "nvidia_t410_cmem_latency" : "nvidia_t410_nvlink_c2c";
    unit.set_detail(t);
    snapshot::SnapshotBuilder b(dir.path());
    for (auto base : {kInstance0, kInstance1, kBroadcast}) b.write_phys32(base + 0xffc, 0);
    machine = std::make_unique<Machine>(MachineOptions{dir.path()});
  }
};

}  // namespace

// Where pmukit differs: the time-based control goes in without its start bit and is started in
// start() with every other unit (the kernel's event_add sets it at once), controls are written
// whole rather than read-modify-written, a lane event is read without the kernel's clear after
// the read, and stop() turns it off without clearing it (pmukit reads after stopping).
TEST(GoldenTrace, DesignWareTimeBasedAndLaneCounters) {
  DwcRig rig;
  auto trace =
      test::run_fixed_events(*rig.machine, {{&rig.unit,
                                             {event(0x21),  // Rx_PCIe_TLP_Data_Payload: type 0, id 0x21
                                              event(0x70c | 1u << 16 | 2u << 20)}}});  // rx_memory_read, lane 2
  const std::vector<pmu::Access> want = {
      config_store(kRootPort, 0x384, 0x21000000),  // report select 0x21, manual duration (0)
      config_store(kRootPort, 0x37c, 0x070c0205),  // select 0x70c, lane 2, per-event off, per-event clear
      config_store(kRootPort, 0x37c, 0x070c020c),  // baseline read: select 0x70c lane 2, per-event on
      config_store(kRootPort, 0x384, 0x21000001),  // start: the timer (which clears its data)
      config_store(kRootPort, 0x37c, 0x070c020d),  // start: per-event clear and on (lane_event_enable)
      config_store(kRootPort, 0x37c, 0x070c020c),  // the read: select, then EVENT_CNT_DATA
      config_store(kRootPort, 0x384, 0x21000000),  // stop
      config_store(kRootPort, 0x37c, 0x070c0204),  // stop: per-event off
      // Restore: the data registers are read-only, so each lane event this run programmed is
      // turned off and cleared with its clear bit, then the saved control's; the time-based one is
      // cleared by starting an empty measurement; then the saved controls.
      config_store(kRootPort, 0x37c, 0x070c0205),
      config_store(kRootPort, 0x37c, 0x5),
      config_store(kRootPort, 0x384, 0x0),
      config_store(kRootPort, 0x384, 0x1),
      config_store(kRootPort, 0x384, 0x0),
      config_store(kRootPort, 0x37c, 0x0),
  };
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

// Two lane events of one root port count at once (Linux dwc_pcie_pmu.c since 71396cfac97d): each
// is programmed, started and stopped by its own EVENT_CNT_CTL write, and each read writes its
// select (event select, lane, per-event on: dwc_pcie_pmu_read_lane_event_counter) before the
// EVENT_CNT_DATA load.
TEST(GoldenTrace, DesignWareLaneEventsInParallelSelectBeforeRead) {
  DwcRig rig;
  auto trace = test::run_fixed_events(
      *rig.machine, {{&rig.unit,
                      {event(0x700 | 1u << 16 | 1u << 20),      // tx_memory_write (group 7, event 0x00), lane 1
                       event(0x602 | 1u << 16 | 3u << 20)}}});  // rx_ack_dllp (group 6, event 0x02), lane 3
  const std::vector<pmu::Access> want = {
      config_store(kRootPort, 0x37c, 0x07000105),  // configure: select 0x700, lane 1, off, clear
      config_store(kRootPort, 0x37c, 0x06020305),  // configure: select 0x602, lane 3, off, clear
      config_store(kRootPort, 0x37c, 0x0700010c),  // baseline: select 0x700 lane 1, read
      config_store(kRootPort, 0x37c, 0x0602030c),  // baseline: select 0x602 lane 3, read
      config_store(kRootPort, 0x37c, 0x0700010d),  // start each: clear and on
      config_store(kRootPort, 0x37c, 0x0602030d),
      config_store(kRootPort, 0x37c, 0x0700010c),  // sample: select, read; select, read
      config_store(kRootPort, 0x37c, 0x0602030c),
      config_store(kRootPort, 0x37c, 0x07000104),  // stop each: off
      config_store(kRootPort, 0x37c, 0x06020304),
      // Restore: both off and cleared (in the order they were programmed: the order the journal
      // lists them for a recovery), the saved control's event off and cleared, the time-based
      // counter quiesced and cleared, then the saved controls.
      config_store(kRootPort, 0x37c, 0x07000105),
      config_store(kRootPort, 0x37c, 0x06020305),
      config_store(kRootPort, 0x37c, 0x5),
      config_store(kRootPort, 0x384, 0x0),
      config_store(kRootPort, 0x384, 0x1),
      config_store(kRootPort, 0x384, 0x0),
      config_store(kRootPort, 0x37c, 0x0),
  };
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

TEST(GoldenTrace, Tegra410C2cBroadcastControl) {
  T410Rig rig(false);
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit, {event(0x2), event(0x0)}}});  // in_rd_req, cycles
  const std::vector<pmu::Access> want = {
      mmio_store(kBroadcast + 0x864, 32, 0),  // disabled while programmed (nv_c2c_pmu_disable)
      mmio_store(kBroadcast + 0x864, 32, 1),  // start: every instance at once (nv_c2c_pmu_enable)
      mmio_store(kBroadcast + 0x864, 32, 0),  // stop
      // Restore: the counters are not writable; they restart from 0 on a re-enable.
      mmio_store(kBroadcast + 0x864, 32, 0),
      mmio_store(kBroadcast + 0x864, 32, 1),
      mmio_store(kBroadcast + 0x864, 32, 0),
  };
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

// Where pmukit differs: the clock stays on from programming to restore (the kernel gates it off
// in cmem_lat_pmu_disable and on again in cmem_lat_pmu_enable), so start and stop are CTRL only.
TEST(GoldenTrace, Tegra410CmemLatencyClockAndClear) {
  T410Rig rig(true);
  auto trace = test::run_fixed_events(*rig.machine, {{&rig.unit, {event(0x1), event(0x2), event(0x0)}}});
  const std::vector<pmu::Access> want = {
      mmio_store(kBroadcast + 0x800, 64, 1),  // clock on, then clear (as cmem_lat_pmu_probe does)
      mmio_store(kBroadcast + 0x808, 64, 2),
      mmio_store(kBroadcast + 0x808, 64, 1),  // start
      mmio_store(kBroadcast + 0x808, 64, 0),  // stop
      // Restore: disabled, cleared with the clock on, then the saved control and clock gate.
      mmio_store(kBroadcast + 0x808, 64, 0),
      mmio_store(kBroadcast + 0x800, 64, 1),
      mmio_store(kBroadcast + 0x808, 64, 2),
      mmio_store(kBroadcast + 0x808, 64, 0),
      mmio_store(kBroadcast + 0x800, 64, 0),
  };
  EXPECT_EQ(test::trace_difference(trace, want), "");
}
