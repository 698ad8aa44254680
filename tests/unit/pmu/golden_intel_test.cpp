// Golden write trace of the Intel PMON box driver on the three access types at once: an IMC box
// over MMIO (with its fixed counter), a CHA over MSRs (with its TID filter) and an M2M box in PCI
// config space. Every value below is written from Linux arch/x86/events/intel/uncore_discovery.c
// (GENERIC_PMON_BOX_CTL_FRZ bit 0, RST_CTRL bit 8, RST_CTRS bit 9 in uncore_discovery.h;
// intel_generic_uncore_{msr,mmio,pci}_init_box / enable_box / disable_box / enable_event) and
// uncore_snbep.c (spr_uncore_msr_enable_event, spr_uncore_mmio_enable_event and
// spr_uncore_pci_enable_event write hwc->config to a general counter's control and nothing more --
// no SNBEP_PMON_CTL_EN (bit 22), which only the fixed counter's control gets; spr_cha_hw_config:
// the TID filter at SPR_C0_MSR_PMON_BOX_FILTER0 0x200e + HSWEP_CBO_MSR_OFFSET 0x10 * box, config1 &
// SPR_CHA_PMON_BOX_FILTER_TID 0x3ff, only when the event sets SPR_CHA_PMON_CTL_TID_EN, bit 16, and
// written before the control), not from pmukit's headers.
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/machines.h"
#include "support/test_support.h"

using namespace pmukit;
using test::config_store;
using test::event;
using test::mmio_store;
using test::msr_store;

namespace {

constexpr const char* kM2m = "0000:7e:0c.0";

const discovery::PmuUnit* unit(const discovery::DiscoveryResult& found, const std::string& name) {
  for (const auto& u : found.inventory.units)
    if (u.name == name) return &u;
  return nullptr;
}

// pmukit's own restore (the kernel has none): every register back to its saved value, in the
// unit's register order (control i, counter i, ...), the box control last.
void put_back_mmio_box(std::vector<pmu::Access>& t, std::uint64_t box, std::uint64_t fixed_counter_value) {
  for (unsigned i = 0; i < 4; ++i) {
    t.push_back(mmio_store(box + 0x40 + 4 * i, 32, 0));  // counter controls: writel
    t.push_back(mmio_store(box + 0x08 + 8 * i, 64, 0));  // counters: 64-bit
  }
  t.push_back(mmio_store(box + 0x54, 32, 0));
  t.push_back(mmio_store(box + 0x38, 64, fixed_counter_value));
  t.push_back(mmio_store(box, 32, 0));
}

}  // namespace

TEST(GoldenTrace, IntelBoxesOverMmioMsrAndPciConfigSpace) {
  test::TempDir dir;
  // IMC boxes at 0xc8aa2800.. (controls +0x40 + 4i, counters +0x8 + 8i, fixed counter +0x38 and
  // its control +0x54, from platforms/intel/spr.json); CHA boxes at MSR 0x2000 + 0x10 * id
  // (controls +2, counters +8); an M2M box at config offset 0x438 of 0000:7e:0c.0 (controls
  // +0x30, counters +8).
  snapshot::build_from_spec(test::spr_every_access_type(), dir.path() / "m");
  Machine machine(MachineOptions{dir.path() / "m"});
  auto found = discovery::discover(machine);
  const auto* imc = unit(found, "uncore_imc_0");
  const auto* cha = unit(found, "uncore_cha_1");
  const auto* m2m = unit(found, "uncore_m2m");
  ASSERT_TRUE(imc && cha && m2m);
  const Bdf m2m_bdf = *Bdf::parse(kM2m);
  {  // Saved values the restore must put back: not all zero.
    pmu::RegisterIo io(machine);
    io.map_block(0xc8aa2800, 0x100);
    io.write(pmu::mmio64(0xc8aa2838, true), 0x77);        // IMC 0 fixed counter
    io.write(pmu::msr(0, 0x201e), 0x2a);                  // CHA 1 TID filter
    io.write(pmu::config64(m2m_bdf, 0x440), 0x12345678);  // M2M counter 0
  }
  auto trace = test::run_fixed_events(
      machine, {{imc, {event(0xcf05), event(0xff)}},   // cas_count_read; the fixed counter (UNCORE_FIXED_EVENT)
                {cha, {event(0x10001, 0xc03)}},        // clockticks, tid_en=1, TID filter config1 0xc03
                {m2m, {event(0x0000000300000102)}}});  // event 2, umask 1, umask extension 3 (config:32-)
  std::vector<pmu::Access> want = {
      // Programming, phase 1 for every box: frozen (disable_box writes FRZ), then reset. The
      // kernel's init_box writes the resets alone (0x300); pmukit keeps FRZ (0x301) so nothing
      // counts before start.
      mmio_store(0xc8aa2800, 32, 0x1),
      mmio_store(0xc8aa2800, 32, 0x301),
      msr_store(0x2010, 0x1),
      msr_store(0x2010, 0x301),
      config_store(kM2m, 0x438, 0x1),  // PCI box controls are one config dword (pci_write_config_dword)
      config_store(kM2m, 0x438, 0x301),
      // Phase 2: counter controls. enable_event writes the config as it is.
      mmio_store(0xc8aa2840, 32, 0xcf05),
      mmio_store(0xc8aa2854, 32, 0x400000),  // fixed counter: SNBEP_PMON_CTL_EN (spr_uncore_mmio_enable_event)
      msr_store(0x201e, 0x3),                // the filter (reg1) first: config1 & 0x3ff
      msr_store(0x2012, 0x10001),            // then the control, tid_en in it
      config_store(kM2m, 0x46c, 0x3),        // spr_uncore_pci_enable_event: the high dword first,
      config_store(kM2m, 0x468, 0x102),      // then the low one
      // Start: enable_box writes 0 to each box control. Stop: disable_box writes FRZ.
      mmio_store(0xc8aa2800, 32, 0),
      msr_store(0x2010, 0),
      config_store(kM2m, 0x438, 0),
      mmio_store(0xc8aa2800, 32, 0x1),
      msr_store(0x2010, 0x1),
      config_store(kM2m, 0x438, 0x1),
      // Restore, the last box first: frozen while the registers go back...
      config_store(kM2m, 0x438, 0x1),
      msr_store(0x2010, 0x1),
      mmio_store(0xc8aa2800, 32, 0x1),
  };
  // ...then each box's saved values, the box control last. PCI controls and counters are dword
  // pairs written high first.
  for (unsigned i = 0; i < 4; ++i) {
    want.push_back(config_store(kM2m, 0x46c + 8 * i, 0));
    want.push_back(config_store(kM2m, 0x468 + 8 * i, 0));
    want.push_back(config_store(kM2m, 0x444 + 8 * i, 0));
    want.push_back(config_store(kM2m, 0x440 + 8 * i, i == 0 ? 0x12345678 : 0));
  }
  want.push_back(config_store(kM2m, 0x438, 0));
  for (unsigned i = 0; i < 4; ++i) want.push_back(msr_store(0x2012 + i, 0)), want.push_back(msr_store(0x2018 + i, 0));
  want.push_back(msr_store(0x201e, 0x2a));
  want.push_back(msr_store(0x2010, 0));
  put_back_mmio_box(want, 0xc8aa2800, 0x77);
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

// Which counter control each event lands in on an SPR IIO box, from Linux uncore_snbep.c
// icx_uncore_iio_constraints (spr_uncore_iio): UNCORE_EVENT_CONSTRAINT(0x83, 0x3) -- inbound
// DATA_REQ_OF_CPU on counters 0-1 -- and UNCORE_EVENT_CONSTRAINT(0xc0, 0xc) -- outbound
// DATA_REQ_BY_CPU on counters 2-3; Intel's perfmon SPR uncore-io file gives the same Counter fields
// ("0,1", "2,3"); configs are the perfmon events' (PortMask at config:36-47, FCMask at 48-50, as
// docs/metrics.md lists them). Events given outbound first; the unconstrained clockticks (event 0x01) takes
// the counter left over. The box's controls are at MSR 0x3008 + i, counters at 0x3001 + i.
TEST(GoldenTrace, IntelIioEventsLandOnTheCountersTheirConstraintsAllow) {
  test::TempDir dir;
  snapshot::build_from_spec(test::spr_every_access_type(test::spr_iio_boxes()), dir.path() / "m");
  Machine machine(MachineOptions{dir.path() / "m"});
  auto found = discovery::discover(machine);
  const auto* iio = unit(found, "uncore_iio_0");
  ASSERT_TRUE(iio);
  auto trace = test::run_fixed_events(machine, {{iio,
                                                 {event(0x00070020000004c0),      // DATA_REQ_BY_CPU.MEM_READ.PART1
                                                  event(0x01),                    // CLOCKTICKS
                                                  event(0x0007001000000483),      // DATA_REQ_OF_CPU.MEM_READ.PART0
                                                  event(0x0007004000000183)}}});  // DATA_REQ_OF_CPU.MEM_WRITE.PART2
  std::vector<pmu::Access> want = {
      msr_store(0x3000, 0x1),
      msr_store(0x3000, 0x301),
      msr_store(0x300a, 0x00070020000004c0),  // counter 2: outbound
      msr_store(0x300b, 0x1),                 // counter 3: what is left
      msr_store(0x3008, 0x0007001000000483),  // counter 0: the first inbound event
      msr_store(0x3009, 0x0007004000000183),  // counter 1: the second
      msr_store(0x3000, 0),
      msr_store(0x3000, 0x1),
      msr_store(0x3000, 0x1),
  };
  for (unsigned i = 0; i < 4; ++i) want.push_back(msr_store(0x3008 + i, 0)), want.push_back(msr_store(0x3001 + i, 0));
  want.push_back(msr_store(0x3000, 0));
  EXPECT_EQ(test::trace_difference(trace, want), "");
}
