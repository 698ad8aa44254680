// Ice Lake-SP boxes from the kernel's fixed tables (issue 32; platforms/intel/icx.json) on the bundled
// icx-2s. Every expected number below is worked out here from Linux arch/x86/events/intel/uncore_snbep.c:
// - icx_uncore_chabox: ICX_C34_MSR_PMON_BOX_CTL 0xb60, CTL0 0xb61, CTR0 0xb68, plus
//   icx_cha_msr_offsets[box] (0x2a0, 0x2ae, ..., 0x38e, 0x3aa, ..., 0x47c, 0x0, 0xe, 0x1c, 0x2a, 0x38,
//   0x46); the count is icx_count_chabox's hweight64 of CAPID6 (0x9c) | CAPID7 (0xa0) << 32 of 0x345b,
//   and icx_uncore_cpu_init registers no MSR box when it exceeds the 40 offsets;
// - icx_uncore_iio / icx_uncore_irp / icx_uncore_m2pcie: box controls 0xa50 / 0xa4a / 0xa40 plus
//   icx_msr_offsets[box] (0x0, 0x20, 0x40, 0x90, 0xb0, 0xd0);
// - icx_uncore_imc: 12 boxes, box i is channel i % ICX_NUMBER_IMC_CHN (3) of controller i / 3; the
//   controller's window is ((0x3451 dword 0xd0 & 0x1fffffff) << 23) | ((dword 0xd8 + 4 * controller &
//   0x7ff) << 12), the box control SNR_IMC_MMIO_PMON_BOX_CTL 0x22800 + SNR_IMC_MMIO_OFFSET 0x4000 *
//   channel past it, controls at +0x40 (+4), counters at +0x8 (+8), fixed control +0x54, counter +0x38;
// - icx_uncore_pci_init: snbep_pci2phy_map_init(0x3450, 0xc0, 0xd4, true): a bus without a UBOX takes
//   the mapping of the nearest UBOX bus above it.
// icx-2s's socket 1 memory controller (0000:fe:00.1) holds MMIO base 0x3fc00 and MEM 0x0, 0x40, 0x80,
// 0xc0; its CAPID6/7 are 0xfbfffbff and 0xc0 (32 CHAs).
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "discovered.h"
#include "pmukit/families/intel/intel_unit.h"

using namespace pmukit;
using json = nlohmann::json;
using test::Discovered;

namespace {

json bundled_spec(const std::string& name) {
  std::ifstream in(std::string(PMUKIT_SOURCE_DIR) + "/platforms/machines/" + name + ".json");
  return json::parse(in);
}

std::map<int, int> per_socket(const Discovered& d, const std::string& type) {
  std::map<int, int> n;
  for (const auto& u : d.r.inventory.units)
    if (u.type_name == type) ++n[u.socket];
  return n;
}

const discovery::IntelUnit* box(const Discovered& d, const std::string& name, int socket) {
  for (const auto& u : d.r.inventory.units)
    if (u.name == name && u.socket == socket) return u.as<discovery::IntelUnit>();
  return nullptr;
}

// The spec's function `bdf`: its config writes replaced by `writes` ({offset, dword}).
void set_config(json& spec, const std::string& bdf, const std::vector<std::pair<unsigned, std::uint32_t>>& writes) {
  for (auto& dev : spec.at("pci_devices")) {
    if (dev.at("bdf") != bdf) continue;
    dev["config_writes"] = json::array();
    for (auto [at, v] : writes) dev["config_writes"].push_back(json{{"at", at}, {"u32", v}});
  }
}

}  // namespace

TEST(KernelBoxes, IceLakeBoxesAreNamedAndCountedAsTheKernelDoes) {
  Discovered d(std::string("icx-2s"));
  EXPECT_EQ(d.r.inventory.platform, "icx");
  EXPECT_EQ(per_socket(d, "imc"), (std::map<int, int>{{0, 12}, {1, 12}})) << d.warnings();
  EXPECT_EQ(per_socket(d, "cha"), (std::map<int, int>{{0, 32}, {1, 32}}));
  for (const char* t : {"iio", "irp", "m2pcie"}) EXPECT_EQ(per_socket(d, t), (std::map<int, int>{{0, 6}, {1, 6}})) << t;
  EXPECT_EQ(per_socket(d, "m2m"), (std::map<int, int>{{0, 4}, {1, 4}}));
  EXPECT_EQ(per_socket(d, "upi"), (std::map<int, int>{{0, 3}, {1, 3}}));
  EXPECT_EQ(per_socket(d, "m3upi"), (std::map<int, int>{{0, 3}, {1, 3}}));
  EXPECT_EQ(per_socket(d, "pcu"), (std::map<int, int>{{0, 1}, {1, 1}}));
  for (const char* name : {"uncore_imc_0", "uncore_imc_11", "uncore_cha_31", "uncore_iio_5", "uncore_irp_5",
                           "uncore_m2pcie_5", "uncore_m2m_3", "uncore_upi_2", "uncore_m3upi_2", "uncore_pcu"})
    EXPECT_TRUE(box(d, name, 0) && box(d, name, 1)) << name;
  EXPECT_FALSE(d.unit("uncore_cha_32"));
  EXPECT_EQ(d.unit("uncore_imc_0")->pmu_kind, "intel_icx_imc");
  // IIO 3 (offset 0x90), IRP 5 (0xd0), M2PCIe 4 (0xb0) of socket 1, through CPU 4.
  const auto& iio = *box(d, "uncore_iio_3", 1);
  EXPECT_EQ(iio.box_ctl, 0xae0u);
  EXPECT_EQ(iio.ctl, (std::vector<std::uint64_t>{0xae8, 0xae9, 0xaea, 0xaeb}));
  EXPECT_EQ(iio.ctr, (std::vector<std::uint64_t>{0xae1, 0xae2, 0xae3, 0xae4}));
  EXPECT_EQ(iio.msr_cpu, 4);
  const auto& irp = *box(d, "uncore_irp_5", 1);
  EXPECT_EQ(irp.box_ctl, 0xb1au);
  EXPECT_EQ(irp.ctl, (std::vector<std::uint64_t>{0xb1d, 0xb1e}));
  EXPECT_EQ(irp.ctr, (std::vector<std::uint64_t>{0xb1b, 0xb1c}));
  const auto& m2pcie = *box(d, "uncore_m2pcie_4", 1);
  EXPECT_EQ(m2pcie.box_ctl, 0xaf0u);
  EXPECT_EQ(m2pcie.ctl.front(), 0xaf6u);
  EXPECT_EQ(m2pcie.ctr.front(), 0xaf1u);
  // M2M 2 and UPI 1 in config space: 0x344a at 14.0, 0x3441 at 3.1 of socket 1's bus 0xfe.
  const auto& m2m = *box(d, "uncore_m2m_2", 1);
  EXPECT_EQ(m2m.pci_device->str(), "0000:fe:0e.0");
  EXPECT_EQ(m2m.box_ctl, 0x438u);
  EXPECT_EQ(m2m.ctl, (std::vector<std::uint64_t>{0x468, 0x470, 0x478, 0x480}));
  EXPECT_EQ(m2m.ctr, (std::vector<std::uint64_t>{0x440, 0x448, 0x450, 0x458}));
  const auto& upi = *box(d, "uncore_upi_1", 1);
  EXPECT_EQ(upi.pci_device->str(), "0000:fe:03.1");
  EXPECT_EQ(upi.box_ctl, 0x318u);
  EXPECT_EQ(upi.ctl.front(), 0x350u);
  EXPECT_EQ(upi.ctr.front(), 0x320u);
}

// icx_cha_msr_offsets is a table, not a stride: CHA 17 is at 0x38e, CHA 18 at 0x3aa (no 0x39c), and
// CHAs 34-39 wrap to 0x0-0x46.
TEST(KernelBoxes, IceLakeChaMsrsFollowTheKernelsOffsetTable) {
  auto spec = bundled_spec("icx-2s");
  set_config(spec, "0000:7e:1e.3", {{0x9c, 0xffffffff}, {0xa0, 0xff}});  // 40 CHAs on both sockets
  Discovered d(spec);
  EXPECT_EQ(per_socket(d, "cha"), (std::map<int, int>{{0, 40}, {1, 40}})) << d.warnings();
  const std::map<std::string, std::uint64_t> box_ctl = {{"uncore_cha_0", 0xe00},  {"uncore_cha_17", 0xeee},
                                                        {"uncore_cha_18", 0xf0a}, {"uncore_cha_33", 0xfdc},
                                                        {"uncore_cha_34", 0xb60}, {"uncore_cha_39", 0xba6}};
  for (const auto& [name, at] : box_ctl) {
    const auto* cha = box(d, name, 1);
    ASSERT_TRUE(cha) << name;
    EXPECT_EQ(cha->box_ctl, at) << name;
    EXPECT_EQ(cha->ctl.front(), at + 1) << name;
    EXPECT_EQ(cha->ctr.front(), at + 8) << name;
  }
  // 41 set bits: more CHAs than icx_cha_msr_offsets lists; the kernel's WARN_ON, after which
  // icx_uncore_cpu_init registers no MSR box type at all (uncore_msr_uncores stays unset); the PCI and
  // MMIO boxes remain.
  set_config(spec, "0000:7e:1e.3", {{0x9c, 0xffffffff}, {0xa0, 0x1ff}});
  Discovered over(spec);
  for (const char* t : {"cha", "iio", "irp", "m2pcie", "pcu"}) EXPECT_TRUE(per_socket(over, t).empty()) << t;
  EXPECT_EQ(per_socket(over, "imc"), (std::map<int, int>{{0, 12}, {1, 12}}));
  EXPECT_EQ(per_socket(over, "m2m"), (std::map<int, int>{{0, 4}, {1, 4}}));
  EXPECT_TRUE(over.warned("41 boxes counted but the kernel lists MSR offsets for 40")) << over.warnings();
}

// The IMC boxes' physical addresses come from the memory controller function's config space, with the
// kernel's masks: bits above SNR_IMC_MMIO_BASE_MASK and SNR_IMC_MMIO_MEM0_MASK do not count.
TEST(KernelBoxes, IceLakeImcWindowIsReadFromTheMemoryControllerConfigSpace) {
  Discovered bundled(std::string("icx-2s"));
  // Socket 1, box 7: channel 1 of controller 2. (0x3fc00 << 23) | (0x80 << 12) + 0x22800 + 0x4000.
  const auto& imc = *box(bundled, "uncore_imc_7", 1);
  EXPECT_EQ(imc.access, discovery::RegAccess::Mmio);
  EXPECT_EQ(imc.box_ctl, 0x1fe000a6800u);
  EXPECT_EQ(imc.ctl, (std::vector<std::uint64_t>{0x1fe000a6840, 0x1fe000a6844, 0x1fe000a6848, 0x1fe000a684c}));
  EXPECT_EQ(imc.ctr, (std::vector<std::uint64_t>{0x1fe000a6808, 0x1fe000a6810, 0x1fe000a6818, 0x1fe000a6820}));
  EXPECT_EQ(imc.fixed_ctl, 0x1fe000a6854u);
  EXPECT_EQ(imc.fixed_ctr, 0x1fe000a6838u);

  auto spec = bundled_spec("icx-2s");
  set_config(spec, "0000:7e:00.1", {{0xd0, 0xe0000123}, {0xd8, 0}, {0xdc, 0xfffff805}, {0xe0, 0x80}, {0xe4, 0xc0}});
  Discovered d(spec);
  // Socket 0, box 3: channel 0 of controller 1: (0x123 << 23) | (0x005 << 12) + 0x22800.
  EXPECT_EQ(box(d, "uncore_imc_3", 0)->box_ctl, 0x91827800u) << d.warnings();
  // Box 11: channel 2 of controller 3: (0x123 << 23) | (0xc0 << 12) + 0x22800 + 0x8000.
  EXPECT_EQ(box(d, "uncore_imc_11", 0)->box_ctl, 0x918ea800u);
}

// A window that puts the boxes in System RAM is contradicted: no box is placed there, as no
// discovery-table MMIO box would be.
TEST(KernelBoxes, IceLakeImcBoxesInSystemRamAreNotPlaced) {
  auto spec = bundled_spec("icx-2s");
  set_config(spec, "0000:fe:00.1", {{0xd0, 0x20}, {0xd8, 0}, {0xdc, 0x40}, {0xe0, 0x80}, {0xe4, 0xc0}});
  Discovered d(spec);
  EXPECT_EQ(per_socket(d, "imc"), (std::map<int, int>{{0, 12}})) << d.warnings();
  EXPECT_TRUE(d.warned("icx_uncore_imc box 0 (window of 0000:fe:00.1): skipped: registers 0x10022800.."))
      << d.warnings();
  EXPECT_TRUE(d.warned("System RAM")) << d.warnings();
}

// icx_uncore_pci_init maps buses with reverse = true: a bus without a UBOX belongs to the socket of
// the nearest UBOX bus above it (0x30 -> 0x7e, socket 0; 0x90 -> 0xfe, socket 1), not below it as on
// Skylake-SP. The NUMA node is not asked.
TEST(KernelBoxes, IceLakePciBusesGoToTheUboxAboveThem) {
  auto spec = bundled_spec("icx-2s");
  for (auto& dev : spec.at("pci_devices")) {
    dev["numa_node"] = -1;
    std::string bdf = dev.at("bdf");
    if (bdf.starts_with("0000:7e:0") && dev.at("id") == "8086:3441") dev["bdf"] = "0000:30" + bdf.substr(7);
    if (bdf == "0000:fe:0c.0") dev["bdf"] = "0000:90:0c.0";
  }
  Discovered d(spec);
  EXPECT_EQ(per_socket(d, "upi"), (std::map<int, int>{{0, 3}, {1, 3}})) << d.warnings();
  EXPECT_EQ(box(d, "uncore_upi_0", 0)->pci_device->str(), "0000:30:02.1");
  EXPECT_EQ(box(d, "uncore_m2m_0", 1)->pci_device->str(), "0000:90:0c.0");
  EXPECT_EQ(per_socket(d, "imc"), (std::map<int, int>{{0, 12}, {1, 12}}));
}
