// DesignWare RAS DES discovery. Capability layouts come from the corpus lspci texts (Ampere Altra,
// Yitian 710, Tegra194): pmukit must find RAS DES exactly at the offsets lspci printed, on the
// DesignWare vendors only; the Haswell root port's Intel VSEC ID 2 (corpus cap-aer-root, a full
// hex dump) must not qualify.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/discovery/dwc_rasdes.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/machines.h"
#include "support/test_support.h"

using namespace pmukit;
using discovery::DwcUnit;

namespace {

struct LspciDevice {
  std::string bdf;
  std::vector<std::pair<unsigned, std::string>> ext_caps;  // offset, lspci's text
};

// Root-port blocks of an lspci -vv text: BDF and extended capabilities ("[248 v1] Vendor ...").
std::vector<LspciDevice> lspci_root_ports(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<LspciDevice> out;
  static const std::regex dev(R"(^(?:\d+:)?((?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) PCI bridge)");
  static const std::regex cap(R"(Capabilities: \[([0-9a-f]{3}) v\d\] (.*)$)");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, dev))
      out.push_back({m[1], {}});
    else if (!out.empty() && std::regex_search(line, m, cap))
      out.back().ext_caps.emplace_back(std::stoul(m[1], nullptr, 16), m[2]);
  }
  return out;
}

// Rebuilds a root port's extended capability chain from lspci's list.
snapshot::ConfigImage image_from(const LspciDevice& d, std::uint16_t vendor, std::uint16_t device) {
  snapshot::ConfigImage c(vendor, device, 0x060400, 1);
  c.add_pcie_cap(0x70, 0x4);
  c.set_bus_numbers(0, 1, 1);
  static const std::regex vsec(R"(Vendor Specific Information: ID=([0-9a-f]{4}) Rev=(\d+) Len=([0-9a-f]{3}))");
  static const std::regex dvsec(
      R"(Designated Vendor-Specific: Vendor=([0-9a-f]{4}) ID=([0-9a-f]{4}) Rev=(\d+) Len=(\d+))");
  // The Yitian excerpt snipped the capabilities before 0x374 ("[...snip...]"): stand one in.
  if (!d.ext_caps.empty() && d.ext_caps.front().first != 0x100) c.add_ext_cap(0x100, 0x01, 2);
  for (const auto& [off, text] : d.ext_caps) {
    std::smatch m;
    auto o = static_cast<std::uint16_t>(off);
    if (std::regex_search(text, m, vsec))
      c.add_vsec(o, static_cast<std::uint16_t>(std::stoul(m[1], nullptr, 16)),
                 static_cast<std::uint8_t>(std::stoul(m[2])),
                 static_cast<std::uint16_t>(std::stoul(m[3], nullptr, 16)));
    else if (std::regex_search(text, m, dvsec))
      c.add_dvsec(o, static_cast<std::uint16_t>(std::stoul(m[1], nullptr, 16)),
                  static_cast<std::uint16_t>(std::stoul(m[2], nullptr, 16)),
                  static_cast<std::uint8_t>(std::stoul(m[3])), static_cast<std::uint16_t>(std::stoul(m[4])));
    else
      c.add_ext_cap(o, 0x01, 1);  // the other capabilities' identity does not matter here
  }
  return c;
}

std::filesystem::path corpus_text(const std::string& name) {
  return test::shared_dir() / "corpus/pci-lspci-text" / name;
}

struct Case {
  std::string file;
  std::uint16_t vendor, device;
};

// Discovers DesignWare units on the root ports of one corpus text; returns lspci's RAS DES offsets
// too.
std::pair<std::vector<const DwcUnit*>, std::vector<unsigned>> run_case(const Case& k, discovery::Inventory& inv,
                                                                       test::TempDir& dir) {
  auto devices = lspci_root_ports(corpus_text(k.file));
  snapshot::SnapshotBuilder b(dir.path());
  std::vector<unsigned> expected;
  int n = 0;
  for (const auto& d : devices) {
    snapshot::PciDeviceSpec s;
    s.bdf = Bdf{static_cast<std::uint32_t>(n++), 0, 0, 0};  // one domain each: corpus BDFs may repeat
    s.config = image_from(d, k.vendor, k.device);
    b.add_pci_device(s);
    for (const auto& [off, text] : d.ext_caps)
      if (text.find("ID=0002 Rev=4 Len=100") != std::string::npos) expected.push_back(off);
  }
  Machine m(MachineOptions{dir.path()});
  auto pci = pci::scan(m);
  discovery::discover_dwc_rasdes(m, pci, {}, inv);
  std::vector<const DwcUnit*> units;
  for (const auto& u : inv.units) units.push_back(u.as<DwcUnit>());
  return {units, expected};
}

}  // namespace

TEST(DwcRasDes, CorpusAmpereAndYitianOffsetsMatchLspci) {
  if (!std::filesystem::exists(corpus_text(""))) GTEST_SKIP() << "shared corpus absent";
  for (const Case& k :
       {Case{"ampere-altra_adlink-devplatform_1def-e101-e111-e115_rootports.lspci-vvnn.excerpt.txt", 0x1def, 0xe101},
        Case{"yitian710_m1-rootport_1ded-8000_b0-00.0.lspci-vvv.excerpt.txt", 0x1ded, 0x8000}}) {
    SCOPED_TRACE(k.file);
    test::TempDir dir;
    discovery::Inventory inv;
    auto [units, expected] = run_case(k, inv, dir);
    ASSERT_FALSE(expected.empty());
    ASSERT_EQ(units.size(), expected.size());
    for (std::size_t i = 0; i < units.size(); ++i) {
      EXPECT_EQ(units[i]->vsec_offset, expected[i]);
      EXPECT_EQ(units[i]->vsec_length, 0x100);
      EXPECT_EQ(units[i]->registers.front().name, "EVENT_CNT_CTL");
      EXPECT_EQ(units[i]->registers.front().offset, expected[i] + 0x08);
      EXPECT_EQ(units[i]->registers.back().offset, expected[i] + 0x18);
    }
    EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  }
}

TEST(DwcRasDes, AmpereCorpusGivesFourRootPortsAtTheirOffsets) {
  if (!std::filesystem::exists(corpus_text(""))) GTEST_SKIP() << "shared corpus absent";
  test::TempDir dir;
  discovery::Inventory inv;
  auto [units, expected] =
      run_case({"ampere-altra_adlink-devplatform_1def-e101-e111-e115_rootports.lspci-vvnn.excerpt.txt", 0x1def, 0xe101},
               inv, dir);
  EXPECT_EQ(expected, (std::vector<unsigned>{0x248, 0x1e0, 0x1e0, 0x1e0}));
  ASSERT_EQ(units.size(), 4u);
  EXPECT_EQ(inv.units[1].name, "dwc_rootport_10000");  // domain 1, bus 0, devfn 0
}

TEST(DwcRasDes, Tegra194VendorIsNotAcceptedButSaidSo) {
  if (!std::filesystem::exists(corpus_text(""))) GTEST_SKIP() << "shared corpus absent";
  test::TempDir dir;
  discovery::Inventory inv;
  // The Tegra194 text is a -vv listing of 0005:00:00.0 without "PCI bridge" in the regex's form.
  LspciDevice d{"0005:00:00.0", {}};
  std::ifstream in(corpus_text("tegra194_rootport_10de-1ad0_0005-00-00.0.lspci-vvxxx-256B.txt"));
  static const std::regex cap(R"(Capabilities: \[([0-9a-f]{3}) v\d\] (.*)$)");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, cap)) d.ext_caps.emplace_back(std::stoul(m[1], nullptr, 16), m[2]);
  }
  ASSERT_EQ(d.ext_caps.size(), 10u);
  snapshot::SnapshotBuilder b(dir.path());
  snapshot::PciDeviceSpec s;
  s.bdf = *Bdf::parse("0005:00:00.0");
  s.config = image_from(d, 0x10de, 0x1ad0);
  b.add_pci_device(s);
  Machine m(MachineOptions{dir.path()});
  EXPECT_EQ(discovery::discover_dwc_rasdes(m, pci::scan(m), {}, inv), 0u);
  ASSERT_EQ(inv.warnings.size(), 1u);
  EXPECT_EQ(inv.warnings[0],
            "0005:00:00.0 VSEC @0x1d0 (ID 0x2 rev 4 len 0x100): looks like DesignWare RAS DES but vendor "
            "10de is not one Linux dwc_pcie_pmu accepts: not used");
}

TEST(DwcRasDes, IntelVsecId2OfTheHaswellRootPortDoesNotQualify) {
  auto dump = test::shared_dir() / "corpus/pci-hexdump/"
                                   "hsw-ep-rootport_8086-2f04_intel-vsec-id2-rev0_plus_mlx-15b3-"
                                   "1007.pciutils-tests-cap-aer-root.txt";
  if (!std::filesystem::exists(dump)) GTEST_SKIP() << "shared corpus absent";
  MachineOptions o;
  o.pci_dump = dump;
  Machine m(o);
  auto devices = pci::scan(m);
  const pci::Device* rp = nullptr;
  for (const auto& d : devices)
    if (d.vendor_id == 0x8086) rp = &d;
  ASSERT_NE(rp, nullptr);
  ASSERT_TRUE(rp->is_root_port());
  ASSERT_NE(rp->find_vsec(0x8086, 2), nullptr);  // the look-alike is there
  EXPECT_EQ(rp->find_vsec(0x8086, 2)->offset, 0x100);
  discovery::Inventory inv;
  EXPECT_EQ(discovery::discover_dwc_rasdes(m, devices, {}, inv), 0u);
  EXPECT_TRUE(inv.warnings.empty());
}

TEST(DwcRasDes, WrongRevisionAndNonRootPortsAreRejected) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  snapshot::PciDeviceSpec rev3;
  rev3.bdf = *Bdf::parse("0000:00:01.0");
  rev3.config = snapshot::ConfigImage(0x1ded, 0x8000, 0x060400, 1);
  rev3.config.add_pcie_cap(0x70, 0x4);
  rev3.config.add_ext_cap(0x100, 0x01, 2);
  rev3.config.add_vsec(0x200, 0x02, 3, 0x100);
  b.add_pci_device(rev3);
  snapshot::PciDeviceSpec ep;
  ep.bdf = *Bdf::parse("0000:01:00.0");
  ep.config = snapshot::ConfigImage(0x1ded, 0x8001, 0x0b4000);
  ep.config.add_pcie_cap(0x40, 0x9);
  ep.config.add_ext_cap(0x100, 0x01, 2);
  ep.config.add_vsec(0x200, 0x02, 4, 0x100);
  b.add_pci_device(ep);
  Machine m(MachineOptions{dir.path()});
  discovery::Inventory inv;
  EXPECT_EQ(discovery::discover_dwc_rasdes(m, pci::scan(m), {}, inv), 0u);
  ASSERT_EQ(inv.warnings.size(), 1u);
  EXPECT_EQ(inv.warnings[0], "0000:00:01.0 VSEC @0x200 (ID 0x2 rev 3 len 0x100): not RAS DES: "
                             "revision 3 (RAS DES is revision 4)");
}

// The Alibaba Yitian 710 PCIe PMU guide's lspci -nn: 15 root ports 1ded:8000.
TEST(DwcRasDes, YitianMachineHasTheGuidesRootPortsNamedAsTheKernelDoes) {
  test::TempDir dir;
  snapshot::build_bundled("yitian", dir / "m");
  Machine m(MachineOptions{dir / "m"});
  auto r = discovery::discover(m);
  std::vector<std::string> names;
  std::vector<const discovery::PmuUnit*> dwc;  // the machine also has a CMN mesh
  for (const auto& u : r.inventory.units)
    if (u.family == discovery::Family::DwcRasDes) names.push_back(u.name), dwc.push_back(&u);
  ASSERT_EQ(names.size(), 15u);
  // dwc_pcie_pmu.rst: 30:03.0 is dwc_rootport_3018; the Yitian article's pcie_bdf_<n> ports.
  EXPECT_NE(std::find(names.begin(), names.end(), "dwc_rootport_3018"), names.end());
  EXPECT_EQ(names.front(), "dwc_rootport_0");
  EXPECT_EQ(names.back(), "dwc_rootport_b000");
  const auto* last = dwc.back()->as<DwcUnit>();
  EXPECT_EQ(last->lanes, 16u);
  EXPECT_EQ(last->vendor_name, "Alibaba");
  EXPECT_EQ(last->vsec_offset, 0x374);
  EXPECT_EQ(dwc.front()->as<DwcUnit>()->lanes, 4u);
  EXPECT_EQ(dwc.front()->pmu_kind, "dwc_pcie");
  EXPECT_EQ(dwc.front()->filters.size(), 1u);  // lane
  EXPECT_TRUE(r.inventory.warnings.empty()) << r.inventory.warnings.front();
  EXPECT_TRUE(r.inventory.root_ports.empty());
}

// The Anolis OS driver names a root port pcie_bdf_<segment << 24 | bus << 16 | device << 8 |
// function> (DWC_PCIE_CREATE_BDF): the segment is part of the name outside segment 0.
TEST(DwcRasDes, AnolisNameIncludesTheSegment) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.add_pci_device(test::dwc_root_port(*Bdf::parse("0001:30:02.0")));
  Machine m(MachineOptions{dir.path()});
  discovery::Inventory inv;
  ASSERT_EQ(discovery::discover_dwc_rasdes(m, pci::scan(m), {}, inv), 1u);
  ASSERT_EQ(inv.units[0].aliases.size(), 1u);
  EXPECT_EQ(inv.units[0].aliases[0].name, "pcie_bdf_1300200");
  EXPECT_EQ(inv.units[0].name, "dwc_rootport_13010");  // upstream: domain << 16 | bus << 8 | devfn
}
