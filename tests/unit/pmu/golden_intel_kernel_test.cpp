// Golden write trace of the Intel box driver on boxes of the kernel's fixed tables (Cascade Lake,
// the bundled clx-2s): an IMC channel in PCI config space (with its fixed counter), a CHA over MSRs
// and an M2M box in PCI config space (controls 8 bytes apart). Every value below is written from
// Linux arch/x86/events/intel/uncore_snbep.c, not from pmukit's headers:
// - box control bits SNBEP_PMON_BOX_CTL_RST_CTRL (1 << 0), RST_CTRS (1 << 1), FRZ (1 << 8);
//   ivbep_uncore_pci_init_box / ivbep_uncore_msr_init_box / skx_m2m_uncore_pci_init_box write
//   IVBEP_PMON_BOX_CTL_INT (the two resets), snbep_uncore_{pci,msr}_disable_box set FRZ and
//   enable_box clear it;
// - snbep_uncore_pci_enable_event (skx_uncore_imc via ivbep_uncore_pci_ops, skx_uncore_m2m) and
//   hswep_cbox_enable_event (skx_uncore_chabox) write hwc->config | SNBEP_PMON_CTL_EN (1 << 22), a
//   PCI control as one config dword; the fixed counter's control gets SNBEP_PMON_CTL_EN alone
//   (uncore_pmu_event_init: a fixed event's hwc->config is 0);
// - registers: SNBEP_PCI_PMON_BOX_CTL 0xf4, SNBEP_PCI_PMON_CTL0 0xd8 (+4 per counter),
//   SNBEP_PCI_PMON_CTR0 0xa0 (+8), SNBEP_MC_CHy_PCI_PMON_FIXED_CTL 0xf0 / FIXED_CTR 0xd0;
//   HSWEP_C0_MSR_PMON_BOX_CTL 0xe00, CTL0 0xe01, CTR0 0xe08; SKX_M2M_PCI_PMON_BOX_CTL 0x258,
//   CTL0 0x228 (+8: UNCORE_BOX_FLAG_CTL_OFFS8), CTR0 0x200 (+8).
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/families/registry.h"
#include "pmukit/pmu/register_io.h"
#include "support/test_support.h"

using namespace pmukit;
using test::config_store;
using test::event;
using test::msr_store;

namespace {

constexpr const char* kImc = "0000:3a:0a.2";  // socket 0 MC0 channel 0 (8086:2042 at 10.2)
constexpr const char* kM2m = "0000:3a:08.0";  // socket 0 M2M 0 (8086:2066 at 8.0)

const discovery::PmuUnit* unit(const discovery::DiscoveryResult& found, const std::string& name) {
  for (const auto& u : found.inventory.units)
    if (u.name == name && u.socket == 0) return &u;
  return nullptr;
}

// A 64-bit config register put back: two dwords, the high one first.
void put_back_pair(std::vector<pmu::Access>& t, const char* bdf, std::uint32_t at, std::uint64_t v) {
  t.push_back(config_store(bdf, at + 4, static_cast<std::uint32_t>(v >> 32)));
  t.push_back(config_store(bdf, at, static_cast<std::uint32_t>(v)));
}

}  // namespace

TEST(GoldenTrace, IntelKernelTableBoxesOverPciConfigSpaceAndMsr) {
  test::TempDir dir;
  families::build_bundled("clx-2s", dir.path() / "m");
  Machine machine(MachineOptions{dir.path() / "m"});
  auto found = families::discover(machine);
  const auto* imc = unit(found, "uncore_imc_0");
  const auto* cha = unit(found, "uncore_cha_0");
  const auto* m2m = unit(found, "uncore_m2m_0");
  ASSERT_TRUE(imc && cha && m2m);
  {  // A saved value the restore must put back: not all zero.
    pmu::RegisterIo io(machine);
    io.write(pmu::config64(*Bdf::parse(kImc), 0xd0), 0x1234567890ull);  // IMC 0 fixed counter
  }
  auto trace = test::run_fixed_events(machine, {{imc, {event(0x0304), event(0xff)}},  // cas_count_read; fixed
                                                {cha, {event(0x00)}},                 // clockticks
                                                {m2m, {event(0x0101)}}});
  std::vector<pmu::Access> want = {
      // Phase 1: frozen (disable_box), then the init's resets; pmukit keeps FRZ with them (0x103)
      // so nothing counts before start.
      config_store(kImc, 0xf4, 0x100),
      config_store(kImc, 0xf4, 0x103),
      msr_store(0xe00, 0x100),
      msr_store(0xe00, 0x103),
      config_store(kM2m, 0x258, 0x100),
      config_store(kM2m, 0x258, 0x103),
      // Phase 2: enable_event, EN with the event.
      config_store(kImc, 0xd8, 0x400304),
      config_store(kImc, 0xf0, 0x400000),
      msr_store(0xe01, 0x400000),
      config_store(kM2m, 0x228, 0x400101),
      // Start: enable_box clears FRZ. Stop: disable_box sets it.
      config_store(kImc, 0xf4, 0),
      msr_store(0xe00, 0),
      config_store(kM2m, 0x258, 0),
      config_store(kImc, 0xf4, 0x100),
      msr_store(0xe00, 0x100),
      config_store(kM2m, 0x258, 0x100),
      // Restore, the last box first: frozen while the registers go back...
      config_store(kM2m, 0x258, 0x100),
      msr_store(0xe00, 0x100),
      config_store(kImc, 0xf4, 0x100),
  };
  // ...then each box's saved values in its register order, the box control last.
  for (unsigned i = 0; i < 4; ++i)
    want.push_back(config_store(kM2m, 0x228 + 8 * i, 0)), put_back_pair(want, kM2m, 0x200 + 8 * i, 0);
  want.push_back(config_store(kM2m, 0x258, 0));
  for (unsigned i = 0; i < 4; ++i) want.push_back(msr_store(0xe01 + i, 0)), want.push_back(msr_store(0xe08 + i, 0));
  want.push_back(msr_store(0xe05, 0));  // the CHA filter (HSWEP_C0_MSR_PMON_BOX_FILTER0, FILTER0 + 1)
  want.push_back(msr_store(0xe06, 0));
  want.push_back(msr_store(0xe00, 0));
  for (unsigned i = 0; i < 4; ++i)
    want.push_back(config_store(kImc, 0xd8 + 4 * i, 0)), put_back_pair(want, kImc, 0xa0 + 8 * i, 0);
  want.push_back(config_store(kImc, 0xf0, 0));
  put_back_pair(want, kImc, 0xd0, 0x1234567890ull);
  want.push_back(config_store(kImc, 0xf4, 0));
  EXPECT_EQ(test::trace_difference(trace, want), "");
}
