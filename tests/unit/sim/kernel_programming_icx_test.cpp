// The simulator's rules for Ice Lake-SP's MMIO IMC boxes (the bundled icx-2s), programmed as Linux
// programs them (uncore_snbep.c): __snr_uncore_mmio_init_box writes IVBEP_PMON_BOX_CTL_INT (bits 0 and
// 1) to the box control with writel, snr_uncore_mmio_enable_event writes hwc->config |
// SNBEP_PMON_CTL_EN (bit 22) to the counter control, snr_uncore_mmio_enable_box clears
// SNBEP_PMON_BOX_CTL_FRZ (bit 8) and disable_box sets it; uncore_mmio_read_counter reads the counter
// with readq. A counter counts only with EN and its box not frozen, as the other boxes of the
// kernel's fixed tables. Registers: socket 0's IMC 0 at (0x3f800 << 23) + 0x22800 (icx-2s's
// memory controller 0000:7e:00.1, MMIO base 0x3f800, MEM0 0), control +0x40, counter +0x8.
#include <gtest/gtest.h>

#include "pmukit/pmu/register_io.h"
#include "pmukit/sim/simulator.h"
#include "support/bundled_rig.h"

using namespace pmukit;

namespace {

constexpr std::uint64_t kImc = 0x1fc00022800;

struct IcxSim {
  test::BundledRig rig{"icx-2s"};
  std::unique_ptr<sim::Simulator> sim;
  IcxSim() { sim = std::make_unique<sim::Simulator>(*rig.machine, rig.found.inventory, sim::Rates::defaults()); }
};

// Linux's sequence for one event: init_box, enable_event, enable_box.
void program_as_linux(pmu::RegisterIo& io, std::uint32_t ctl) {
  io.map_block(kImc, 0x58);
  io.write(pmu::mmio32(kImc), 0x3);
  io.write(pmu::mmio32(kImc + 0x40), ctl);
  io.write(pmu::mmio32(kImc), 0);
}

}  // namespace

TEST(SimulatorHardwareRules, IceLakeMmioImcCountsOnlyWithTheEnableBitWhileUnfrozen) {
  IcxSim s;
  pmu::RegisterIo io(*s.rig.machine);
  program_as_linux(io, 0x400f04);  // cas_count_read (snr_uncore_imc_events: event=0x04,umask=0x0f) with EN
  s.sim->step(1'000'000'000);
  // rates.json: intel_icx_imc 0x0f04 1e8/s.
  EXPECT_EQ(io.read(pmu::mmio64(kImc + 0x8, true)), 100'000'000u);
  EXPECT_TRUE(s.sim->faults().empty());
  io.write(pmu::mmio32(kImc), 0x100);  // disable_box: frozen, nothing more counts
  s.sim->step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::mmio64(kImc + 0x8, true)), 100'000'000u);
}

TEST(SimulatorHardwareRules, IceLakeMmioImcWithoutTheEnableBitDoesNotCount) {
  IcxSim s;
  pmu::RegisterIo io(*s.rig.machine);
  program_as_linux(io, 0xf04);  // as an SPR box takes it: no EN
  s.sim->step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::mmio64(kImc + 0x8, true)), 0u);
  EXPECT_TRUE(s.sim->faults().empty());
}
