// Golden write trace of the other box types of the kernel's fixed SKX tables on the bundled clx-2s:
// IIO, IRP and PCU over MSRs, UPI, M2PCIe and M3UPI in PCI config space, one event each. The values
// are Linux arch/x86/events/intel/uncore_snbep.c's: init_box writes IVBEP_PMON_BOX_CTL_INT (bits 0-1;
// ivbep_uncore_msr_init_box, ivbep_uncore_pci_init_box, skx_upi_uncore_pci_init_box), pmukit keeping
// SNBEP_PMON_BOX_CTL_FRZ (bit 8) with it; enable_event writes hwc->config | SNBEP_PMON_CTL_EN (bit 22;
// skx_iio_enable_event, snbep_uncore_msr_enable_event, snbep_uncore_pci_enable_event -- a PCI
// control as one config dword); enable_box/disable_box clear and set FRZ. Registers: SKX_IIO0_MSR_PMON_
// BOX_CTL 0xa40 / CTL0 0xa48 / CTR0 0xa41 + SKX_IIO_MSR_OFFSET 0x20 per box; SKX_IRP0_MSR_PMON_BOX_CTL
// 0xa58 / CTL0 0xa5b / CTR0 0xa59 + 0x20; HSWEP_PCU_MSR_PMON_BOX_CTL 0x710 / CTL0 0x711 / CTR0 0x717;
// SKX_UPI_PCI_PMON_BOX_CTL 0x378 / CTL0 0x350 (+8, UNCORE_BOX_FLAG_CTL_OFFS8) / CTR0 0x318 (+8);
// SNBEP_PCI_PMON_BOX_CTL 0xf4 / CTL0 0xd8 (+4) / CTR0 0xa0 (+8) for M2PCIe and M3UPI. Events on
// constrained counters take the first counter their rule allows (skx_uncore_iio_constraints 0x83:
// 0x3, skx_uncore_m2pcie_constraints 0x23: 0x3, skx_uncore_m3upi_constraints 0x40: 0x7).
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/families/registry.h"
#include "support/test_support.h"

using namespace pmukit;
using test::config_store;
using test::event;
using test::msr_store;

namespace {

const discovery::PmuUnit* unit(const discovery::DiscoveryResult& found, const std::string& name) {
  for (const auto& u : found.inventory.units)
    if (u.name == name && u.socket == 0) return &u;
  return nullptr;
}

// One box as the test writes it out: where its box control, controls and counters are.
struct Box {
  const char* bdf;  // null: MSRs of CPU 0
  std::uint32_t box, ctl, ctl_step, ctr, ctr_step;
  unsigned counters;
  std::uint64_t programmed;  // counter control 0's value
};

pmu::Access box_store(const Box& b, std::uint32_t at, std::uint32_t v) {
  return b.bdf ? config_store(b.bdf, at, v) : msr_store(at, v);
}

// Restore's put-back of one box: each control and counter back to 0 (a PCI counter is a dword pair,
// the high one first), the box control last.
void put_back(std::vector<pmu::Access>& t, const Box& b) {
  for (unsigned i = 0; i < b.counters; ++i) {
    t.push_back(box_store(b, b.ctl + b.ctl_step * i, 0));
    if (b.bdf) t.push_back(config_store(b.bdf, b.ctr + b.ctr_step * i + 4, 0));
    t.push_back(box_store(b, b.ctr + b.ctr_step * i, 0));
  }
  t.push_back(box_store(b, b.box, 0));
}

}  // namespace

TEST(GoldenTrace, IntelKernelTableIioIrpPcuUpiM2pcieM3upi) {
  test::TempDir dir;
  families::build_bundled("clx-2s", dir.path() / "m");
  Machine machine(MachineOptions{dir.path() / "m"});
  auto found = families::discover(machine);
  const std::vector<Box> boxes = {
      {nullptr, 0xa60, 0xa68, 1, 0xa61, 1, 4, 0x0000701000400483},  // uncore_iio_1: ch_mask 1, fc_mask 7, event 0x83
      {nullptr, 0xa98, 0xa9b, 1, 0xa99, 1, 2, 0x40000f},            // uncore_irp_2
      {nullptr, 0x710, 0x711, 1, 0x717, 1, 4, 0x400000},            // uncore_pcu: event 0
      {"0000:5d:0e.0", 0x378, 0x350, 8, 0x318, 8, 4, 0x400102},     // uncore_upi_0
      {"0000:17:15.1", 0xf4, 0xd8, 4, 0xa0, 8, 4, 0x400023},        // uncore_m2pcie_0
      {"0000:5d:12.1", 0xf4, 0xd8, 4, 0xa0, 8, 3, 0x400040},        // uncore_m3upi_0
  };
  const char* names[] = {"uncore_iio_1", "uncore_irp_2",    "uncore_pcu",
                         "uncore_upi_0", "uncore_m2pcie_0", "uncore_m3upi_0"};
  const std::uint64_t configs[] = {0x0000701000000483, 0x0f, 0x00, 0x0102, 0x23, 0x40};
  std::vector<pmu::UnitEvents> work;
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    const auto* u = unit(found, names[k]);
    ASSERT_TRUE(u) << names[k];
    work.push_back({u, {event(configs[k])}});
  }
  auto trace = test::run_fixed_events(machine, work);
  std::vector<pmu::Access> want;
  for (const auto& b : boxes) want.push_back(box_store(b, b.box, 0x100)), want.push_back(box_store(b, b.box, 0x103));
  for (const auto& b : boxes)
    want.push_back(b.bdf ? config_store(b.bdf, b.ctl, static_cast<std::uint32_t>(b.programmed))
                         : msr_store(b.ctl, b.programmed));
  for (const auto& b : boxes) want.push_back(box_store(b, b.box, 0));
  for (const auto& b : boxes) want.push_back(box_store(b, b.box, 0x100));
  for (auto b = boxes.rbegin(); b != boxes.rend(); ++b) want.push_back(box_store(*b, b->box, 0x100));
  for (auto b = boxes.rbegin(); b != boxes.rend(); ++b) put_back(want, *b);
  EXPECT_EQ(test::trace_difference(trace, want), "");
}
