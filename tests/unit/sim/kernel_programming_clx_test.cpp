// The simulator's rules for the boxes of the kernel's fixed tables (Cascade Lake, the bundled
// clx-2s): a counter counts only while its control has SNBEP_PMON_CTL_EN (bit 22) set and its box
// is not frozen (SNBEP_PMON_BOX_CTL_FRZ, bit 8) -- SKX uncore guide; Linux's enable_event of these
// boxes writes hwc->config | SNBEP_PMON_CTL_EN (snbep_uncore_pci_enable_event,
// hswep_cbox_enable_event) and their init writes IVBEP_PMON_BOX_CTL_INT (bits 0 and 1, the resets).
// EN is no reserved bit here: no fault. Registers: IMC channel 0 of socket 0 at 0000:3a:0a.2 (box
// control 0xf4, control 0xd8, counter 0xa0); CHA 0 at MSR 0xe00 (control 0xe01, counter 0xe08).
#include <gtest/gtest.h>

#include "pmukit/pmu/register_io.h"
#include "pmukit/sim/simulator.h"
#include "support/bundled_rig.h"

using namespace pmukit;

namespace {

constexpr const char* kImc = "0000:3a:0a.2";

// Linux's sequence for one event in each box: init_box, enable_event, enable_box.
void program_as_linux(pmu::RegisterIo& io, std::uint32_t imc_ctl, std::uint64_t cha_ctl) {
  const Bdf imc = *Bdf::parse(kImc);
  io.write(pmu::config32(imc, 0xf4), 0x3);
  io.write(pmu::msr(0, 0xe00), 0x3);
  io.write(pmu::config32(imc, 0xd8), imc_ctl);
  io.write(pmu::msr(0, 0xe01), cha_ctl);
  io.write(pmu::config32(imc, 0xf4), 0);
  io.write(pmu::msr(0, 0xe00), 0);
}

struct ClxSim {
  test::BundledRig rig{"clx-2s"};
  std::unique_ptr<sim::Simulator> sim;
  ClxSim() {
    auto rates = sim::Rates::defaults();
    rates.add_rule("intel_skx_cha:0x0000=5000");
    sim = std::make_unique<sim::Simulator>(*rig.machine, rig.found.inventory, rates);
  }
};

}  // namespace

TEST(SimulatorHardwareRules, PreDiscoveryBoxesCountOnlyWithTheEnableBit) {
  ClxSim s;
  pmu::RegisterIo io(*s.rig.machine);
  const Bdf imc = *Bdf::parse(kImc);
  program_as_linux(io, 0x400304, 0x400000);  // cas_count_read and CHA clockticks, each with EN
  s.sim->step(1'000'000'000);
  // rates.json: intel_skx_imc 0x0304 8e7/s; the CHA rule above.
  EXPECT_EQ(io.read(pmu::config64(imc, 0xa0)), 80'000'000u);
  EXPECT_EQ(io.read(pmu::msr(0, 0xe08)), 5'000u);
  EXPECT_TRUE(s.sim->faults().empty());
  // Frozen (disable_box sets FRZ): nothing more counts.
  io.write(pmu::config32(imc, 0xf4), 0x100);
  s.sim->step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::config64(imc, 0xa0)), 80'000'000u);
}

TEST(SimulatorHardwareRules, PreDiscoveryBoxesWithoutTheEnableBitDoNotCount) {
  ClxSim s;
  pmu::RegisterIo io(*s.rig.machine);
  program_as_linux(io, 0x304, 0x1);  // the same events as an SPR box takes them: no EN
  s.sim->step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::config64(*Bdf::parse(kImc), 0xa0)), 0u);
  EXPECT_EQ(io.read(pmu::msr(0, 0xe08)), 0u);
  EXPECT_TRUE(s.sim->faults().empty());
}
