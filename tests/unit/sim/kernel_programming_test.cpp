// The simulator counts by the hardware's rules, so a unit programmed exactly as Linux programs it
// counts, and a write the hardware refuses shows: on SPR and later an Intel box counts while it is
// not frozen, its general counter controls have no enable bit (Linux writes hwc->config alone:
// spr_uncore_msr_enable_event, spr_uncore_mmio_enable_event, spr_uncore_pci_enable_event) and bit
// 22, the enable bit of older uncores, is reserved; an Arm CMN DTC's cycle counter misses the
// cycles its clock is gated unless DTC_CTL.CG_DISABLE (bit 10) is set, which arm-cmn.c sets while a
// cycles event runs ("perf/arm-cmn: Make cycle counts less surprising"). Register addresses are the
// test machines' (support/machines.h); the values written are the kernel's, as literals.
#include <gtest/gtest.h>

#include <algorithm>

#include "pmukit/discovery/cmn_unit.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/session.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/bundled_rig.h"
#include "support/machines.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

constexpr const char* kM2m = "0000:7e:0c.0";

struct SprRig {
  test::TempDir dir;
  std::unique_ptr<Machine> machine;
  discovery::DiscoveryResult found;
  std::unique_ptr<sim::Simulator> sim;
  SprRig() {
    snapshot::build_from_spec(test::spr_every_access_type(test::spr_iio_boxes()), dir.path() / "m");
    machine = std::make_unique<Machine>(MachineOptions{dir.path() / "m"});
    found = discovery::discover(*machine);
    auto rates = sim::Rates::defaults();
    rates.add_rule("intel_spr_raw:0x0002=3000000");  // M2M event 2
    sim = std::make_unique<sim::Simulator>(*machine, found.inventory, rates);
  }
  const discovery::PmuUnit* unit(const std::string& name) const {
    for (const auto& u : found.inventory.units)
      if (u.name == name) return &u;
    return nullptr;
  }
};

// Linux's whole sequence for one event on each access type, written as the kernel writes it:
// init_box (GENERIC_PMON_BOX_CTL_INT 0x300), enable_event (the config alone), enable_box (0).
void program_as_linux(pmu::RegisterIo& io, std::uint64_t cha_ctl, std::uint64_t imc_ctl, std::uint64_t m2m_ctl) {
  const Bdf m2m = *Bdf::parse(kM2m);
  io.map_block(0xc8aa2800, 0x100);
  io.write(pmu::msr(0, 0x2010), 0x300);        // CHA 1: box control, controls +2, counters +8
  io.write(pmu::mmio32(0xc8aa2800), 0x300);    // IMC 0: writel
  io.write(pmu::config32(m2m, 0x438), 0x300);  // M2M: one config dword
  io.write(pmu::msr(0, 0x2012), cha_ctl);
  io.write(pmu::mmio32(0xc8aa2840), imc_ctl);
  io.write(pmu::config32(m2m, 0x46c), static_cast<std::uint32_t>(m2m_ctl >> 32));  // high dword first
  io.write(pmu::config32(m2m, 0x468), static_cast<std::uint32_t>(m2m_ctl));
  io.write(pmu::msr(0, 0x2010), 0);
  io.write(pmu::mmio32(0xc8aa2800), 0);
  io.write(pmu::config32(m2m, 0x438), 0);
}

}  // namespace

TEST(SimulatorHardwareRules, IntelBoxesProgrammedAsLinuxDoesCount) {
  SprRig rig;
  pmu::RegisterIo io(*rig.machine);
  program_as_linux(io, 0x01, 0xcf05, 0x02);  // CHA clockticks, IMC cas_count_read, M2M event 2
  rig.sim->step(1'000'000'000);
  // rates.json: intel_spr_cha 0x0001 2e9/s, intel_spr_imc 0xcf05 1e8/s; the rule above.
  EXPECT_EQ(io.read(pmu::msr(0, 0x2018)), 2'000'000'000u);
  EXPECT_EQ(io.read(pmu::mmio64(0xc8aa2808, true)), 100'000'000u);
  EXPECT_EQ(io.read(pmu::config64(*Bdf::parse(kM2m), 0x440)), 3'000'000u);
  EXPECT_TRUE(rig.sim->faults().empty());
  // Frozen (disable_box writes GENERIC_PMON_BOX_CTL_FRZ): nothing more counts.
  io.write(pmu::msr(0, 0x2010), 0x1);
  rig.sim->step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::msr(0, 0x2018)), 2'000'000'000u);
}

TEST(SimulatorHardwareRules, IntelReservedEnableBitIsAFaultAndDoesNotCount) {
  SprRig rig;
  pmu::RegisterIo io(*rig.machine);
  program_as_linux(io, 0x400001, 0x40cf05, 0x400002);  // the same events with bit 22 set
  rig.sim->step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::msr(0, 0x2018)), 0u);
  EXPECT_EQ(io.read(pmu::mmio64(0xc8aa2808, true)), 0u);
  ASSERT_EQ(rig.sim->faults().size(), 3u);
  const std::vector<std::string> want = {
      "uncore_cha_1: counter control 0 (MSR 0x2012 (CPU 0)) = 0x400001 sets reserved bit 22",
      "uncore_imc_0: counter control 0 (MMIO 0xc8aa2840) = 0x40cf05 sets reserved bit 22",
      "uncore_m2m: counter control 0 (PCI 0000:7e:0c.0 @0x468) = 0x400002 sets reserved bit 22"};
  for (const auto& w : want)
    EXPECT_TRUE(std::any_of(rig.sim->faults().begin(), rig.sim->faults().end(), [&](const std::string& f) {
      return f.starts_with(w);
    })) << w;
  // Reported once, not at every step.
  rig.sim->step(1'000'000'000);
  EXPECT_EQ(rig.sim->faults().size(), 3u);
}

// pmukit's own programming of every access type, the fixed counter and the CHA filter: nothing the
// hardware would refuse, and every counter counts.
TEST(SimulatorHardwareRules, PmukitSessionSetsNoReservedBit) {
  SprRig rig;
  pmu::SessionOptions o;
  o.settle = rig.sim.get();
  auto ev = [](std::uint64_t config, std::uint64_t config1 = 0) {
    syntax::EncodedEvent e;
    e.config = config, e.config1 = config1;
    return e;
  };
  pmu::DirectSession s(*rig.machine,
                       {{rig.unit("uncore_imc_0"), {ev(0xcf05), ev(0xff)}},
                        {rig.unit("uncore_cha_1"), {ev(0x10001, 0x3)}},
                        {rig.unit("uncore_m2m"), {ev(0x300000002)}},
                        {rig.unit("uncore_iio_0"), {ev(0x0007001000000483)}}},
                       platform::Database::builtin(), o);
  s.start();
  rig.sim->step(1'000'000'000);
  const auto& v = s.sample();
  for (const auto& unit : v)
    for (const auto& c : unit) EXPECT_GT(c.delta, 0u);
  s.stop();
  s.restore();
  EXPECT_EQ(rig.sim->faults(), std::vector<std::string>{});
}

// dtc_cycles on the bundled yitian mesh: with the DTC's clock gating left on (DTC_CTL = DT_EN, the
// value arm-cmn.c wrote before it set CG_DISABLE) the cycle counter sees the gated clock
// (rates.json cycles_gated, 4.5e8/s); as pmukit programs it now, DT_EN | CG_DISABLE (0x401), it
// counts every cycle of the 1.8 GHz mesh clock.
TEST(SimulatorHardwareRules, CmnCycleCounterCountsEveryCycleOnlyWithClockGatingOff) {
  test::BundledRig m("yitian");
  sim::Simulator simulator(*m.machine, m.found.inventory, sim::Rates::defaults());
  const discovery::PmuUnit* cmn = nullptr;
  for (const auto& u : m.found.inventory.units)
    if (u.name == "arm_cmn_0") cmn = &u;
  ASSERT_NE(cmn, nullptr);
  pmu::SessionOptions o;
  o.settle = &simulator;
  syntax::EncodedEvent cycles;
  cycles.config = 0x3;  // type=0x3: dtc_cycles
  {
    pmu::DirectSession s(*m.machine, {{cmn, {cycles}}}, platform::Database::builtin(), o);
    s.start();
    simulator.step(1'000'000'000);
    EXPECT_EQ(s.sample()[0][0].delta, 1'800'000'000u);
    s.stop();
    s.restore();
  }
  // The same counter with gating on, programmed by hand: the DTC of domain 0, DTC_CTL at +0xa00,
  // PMCCNTR at +0x2040, PMCR at +0x2100 (arm-cmn.c CMN_DT_DTC_CTL, CMN_DT_PMCCNTR, CMN_DT_PMCR).
  const auto* mesh = cmn->as<discovery::CmnUnit>();
  ASSERT_FALSE(mesh->dtcs.empty());
  const std::uint64_t dtc = mesh->base + mesh->dtcs[0].offset;
  pmu::RegisterIo io(*m.machine);
  io.map_block(dtc, 0x4000);
  io.write(pmu::mmio32(dtc + 0xa00), 0x1);                  // DT_EN, clock gating on
  io.write(pmu::mmio64(dtc + 0x2040, true), 0x8000000000);  // CMN_CC_INIT
  io.write(pmu::mmio32(dtc + 0x2100), 0x1);                 // PMCR.PMU_EN
  simulator.step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::mmio64(dtc + 0x2040, true)) - 0x8000000000, 450'000'000u);
  io.write(pmu::mmio32(dtc + 0xa00), 0x401);  // DT_EN | CG_DISABLE
  simulator.step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::mmio64(dtc + 0x2040, true)) - 0x8000000000, 450'000'000u + 1'800'000'000u);
}
