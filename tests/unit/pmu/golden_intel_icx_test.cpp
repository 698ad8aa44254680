// Golden write trace of the Intel box driver on the Ice Lake-SP boxes of the kernel's fixed tables
// (the bundled icx-2s, socket 0): one event on each box type. Every value is written from Linux
// arch/x86/events/intel/uncore_snbep.c, not from pmukit's headers or platform data:
// - init_box writes IVBEP_PMON_BOX_CTL_INT (RST_CTRL 1 << 0 | RST_CTRS 1 << 1): ivbep_uncore_msr_init_box
//   (icx_uncore_chabox_ops, skx_uncore_iio_ops, ivbep_uncore_msr_ops of IRP, M2PCIe and PCU),
//   snr_m2m_uncore_pci_init_box (M2M), skx_upi_uncore_pci_init_box (UPI), ivbep_uncore_pci_init_box
//   (M3UPI), __snr_uncore_mmio_init_box (IMC: writel); pmukit keeps SNBEP_PMON_BOX_CTL_FRZ (1 << 8)
//   with it; enable_box / disable_box clear and set FRZ (snbep_uncore_msr_*, snbep_uncore_pci_*,
//   snr_uncore_mmio_*: writel);
// - enable_event writes hwc->config | SNBEP_PMON_CTL_EN (1 << 22): snr_cha_enable_event (wrmsrl, 64
//   bits: the umask extension stays), skx_iio_enable_event, snbep_uncore_msr_enable_event,
//   snbep_uncore_pci_enable_event (one config dword), snr_uncore_mmio_enable_event (writel); the IMC
//   fixed counter's control gets SNBEP_PMON_CTL_EN alone (a fixed event's hwc->config is 0);
// - registers: CHA 0 ICX_C34_MSR_PMON_BOX_CTL 0xb60 + icx_cha_msr_offsets[0] 0x2a0 = 0xe00, CTL0
//   0xe01, CTR0 0xe08; IIO 1 0xa50 + icx_msr_offsets[1] 0x20 = 0xa70 (CTL0 +8, CTR0 +1); IRP 3 0xa4a + 0x90
//   = 0xada (CTL0 +3, CTR0 +1); M2PCIe 2 0xa40 + 0x40 = 0xa80 (CTL0 +6, CTR0 +1); PCU 0x710 / 0x711 /
//   0x717; M2M 1 (0x344a at 13.0) SNR_M2M_PCI_PMON_BOX_CTL 0x438, CTL0 0x468 (+8), CTR0 0x440 (+8);
//   UPI 2 (0x3441 at 4.1) ICX_UPI_PCI_PMON_BOX_CTL 0x318, CTL0 0x350 (+8), CTR0 0x320 (+8); M3UPI 0
//   (0x3446 at 5.1) ICX_M3UPI_PCI_PMON_BOX_CTL 0xa0, CTL0 0xd8 (+4), CTR0 0xa8 (+8); IMC 0: the window of
//   socket 0's 0x3451 (icx-2s: MMIO base 0x3f800 at 0xd0, MEM0 0 at 0xd8) is 0x3f800 << 23 =
//   0x1fc00000000, the box control SNR_IMC_MMIO_PMON_BOX_CTL 0x22800 past it; controls +0x40 (+4),
//   counters +0x8 (+8, readq: 64-bit), fixed control +0x54, fixed counter +0x38.
// Events on constrained counters take the first counter their rule allows (icx_uncore_iio_constraints
// 0x83: 0x3; icx_uncore_m2pcie_constraints 0x23: 0x3; icx_uncore_m3upi_constraints 0x40: 0x7).
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/families/registry.h"
#include "pmukit/pmu/register_io.h"
#include "support/test_support.h"

using namespace pmukit;
using test::config_store;
using test::event;
using test::mmio_store;
using test::msr_store;

namespace {

constexpr std::uint64_t kImc = 0x1fc00022800;  // uncore_imc_0 of socket 0

enum class Via { Msr, Pci, Mmio };

// One box as the test writes it out.
struct Box {
  const char* name;
  Via via;
  const char* bdf;  // PCI boxes
  std::uint64_t box, ctl, ctl_step, ctr, ctr_step;
  unsigned counters;
  std::uint64_t config;      // the event
  std::uint64_t programmed;  // counter control 0's value
};

const std::vector<Box> kBoxes = {
    {"uncore_imc_0", Via::Mmio, nullptr, kImc, kImc + 0x40, 4, kImc + 0x08, 8, 4, 0x0f04, 0x400f04},
    {"uncore_cha_0", Via::Msr, nullptr, 0xe00, 0xe01, 1, 0xe08, 1, 4, 0x100000f34, 0x100400f34},
    {"uncore_iio_1", Via::Msr, nullptr, 0xa70, 0xa78, 1, 0xa71, 1, 4, 0x0007001000000483, 0x0007001000400483},
    {"uncore_irp_3", Via::Msr, nullptr, 0xada, 0xadd, 1, 0xadb, 1, 2, 0x0f, 0x40000f},
    {"uncore_m2pcie_2", Via::Msr, nullptr, 0xa80, 0xa86, 1, 0xa81, 1, 4, 0x23, 0x400023},
    {"uncore_pcu", Via::Msr, nullptr, 0x710, 0x711, 1, 0x717, 1, 4, 0x00, 0x400000},
    {"uncore_m2m_1", Via::Pci, "0000:7e:0d.0", 0x438, 0x468, 8, 0x440, 8, 4, 0x0101, 0x400101},
    {"uncore_upi_2", Via::Pci, "0000:7e:04.1", 0x318, 0x350, 8, 0x320, 8, 4, 0x0f02, 0x400f02},
    {"uncore_m3upi_0", Via::Pci, "0000:7e:05.1", 0xa0, 0xd8, 4, 0xa8, 8, 4, 0x40, 0x400040},
};

// A 32-bit control store (an MSR is written whole).
pmu::Access store(const Box& b, std::uint64_t at, std::uint64_t v) {
  switch (b.via) {
  case Via::Msr:
    return msr_store(static_cast<std::uint32_t>(at), v);
  case Via::Pci:
    return config_store(b.bdf, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(v));
  case Via::Mmio:
    break;
  }
  return mmio_store(at, 32, v);
}

// Restore's put-back of one box: each control and counter to its saved value (a PCI counter is a
// dword pair, the high one first; an MMIO counter one 64-bit store), the fixed counter, the box last.
void put_back(std::vector<pmu::Access>& t, const Box& b, std::uint64_t fixed_saved) {
  for (unsigned i = 0; i < b.counters; ++i) {
    t.push_back(store(b, b.ctl + b.ctl_step * i, 0));
    const std::uint64_t ctr = b.ctr + b.ctr_step * i;
    if (b.via == Via::Pci) t.push_back(config_store(b.bdf, static_cast<std::uint32_t>(ctr + 4), 0));
    t.push_back(b.via == Via::Mmio ? mmio_store(ctr, 64, 0) : store(b, ctr, 0));
  }
  if (b.via == Via::Mmio)
    t.push_back(mmio_store(b.box + 0x54, 32, 0)), t.push_back(mmio_store(b.box + 0x38, 64, fixed_saved));
  t.push_back(store(b, b.box, 0));
}

const discovery::PmuUnit* unit(const discovery::DiscoveryResult& found, const std::string& name) {
  for (const auto& u : found.inventory.units)
    if (u.name == name && u.socket == 0) return &u;
  return nullptr;
}

}  // namespace

TEST(GoldenTrace, IntelKernelTableIceLakeBoxes) {
  test::TempDir dir;
  families::build_bundled("icx-2s", dir.path() / "m");
  Machine machine(MachineOptions{dir.path() / "m"});
  auto found = families::discover(machine);
  {  // A saved value the restore must put back: not all zero.
    pmu::RegisterIo io(machine);
    io.map_block(kImc, 0x58);
    io.write(pmu::mmio64(kImc + 0x38, true), 0x1234567890ull);  // IMC 0 fixed counter
  }
  std::vector<pmu::UnitEvents> work;
  for (const auto& b : kBoxes) {
    const auto* u = unit(found, b.name);
    ASSERT_TRUE(u) << b.name;
    work.push_back({u, {event(b.config)}});
    if (b.via == Via::Mmio) work.back().events.push_back(event(0xff));  // the fixed counter
  }
  auto trace = test::run_fixed_events(machine, work);
  std::vector<pmu::Access> want;
  for (const auto& b : kBoxes) want.push_back(store(b, b.box, 0x100)), want.push_back(store(b, b.box, 0x103));
  for (const auto& b : kBoxes) {
    want.push_back(store(b, b.ctl, b.programmed));
    if (b.via == Via::Mmio) want.push_back(mmio_store(b.box + 0x54, 32, 0x400000));
  }
  for (const auto& b : kBoxes) want.push_back(store(b, b.box, 0));
  for (const auto& b : kBoxes) want.push_back(store(b, b.box, 0x100));
  for (auto b = kBoxes.rbegin(); b != kBoxes.rend(); ++b) want.push_back(store(*b, b->box, 0x100));
  for (auto b = kBoxes.rbegin(); b != kBoxes.rend(); ++b) put_back(want, *b, 0x1234567890ull);
  EXPECT_EQ(test::trace_difference(trace, want), "");
}
