// The shape of the virtual machines pmukit first met (issue 27): ACPI slot devices without a _HID
// (device:NN, the _ADR objects of a host bridge), six of them companions of PCI functions whose
// BAR0 /proc/iomem names by PCI address. Nothing there is a PMU: no identity may match on the
// absent _HID, and no region the kernel gives a PCI function may be mapped as a unit's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "discovered.h"
#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/access_report.h"
#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/families/registry.h"

using namespace pmukit;
using json = nlohmann::json;
using test::Discovered;
using test::noted;

namespace {

json vm_spec() {
  std::ifstream in(PMUKIT_SOURCE_DIR "/tests/data/machines/vm-adr-slots.json");
  return json::parse(in);
}

bool any_of_has(const std::vector<std::string>& lines, const std::string& needle) {
  for (const auto& l : lines)
    if (l.find(needle) != std::string::npos) return true;
  return false;
}

json arm(json cmn, json extra = json::object()) {
  json m{
      {"name", "t"}, {"cpuinfo", {{"vendor", ""}}}, {"topology", {{"sockets", 1}, {"cpus_per_die", 2}}}, {"cmn", cmn}};
  m.update(extra);
  return m;
}

// A 2 x 2 CMN-700 mesh with a DTC, as the cmn section writes it.
json mesh() {
  return json{{"base", "0x50000000"},
              {"size", "0x4000000"},
              {"part", "0x43c"},
              {"mesh", {2, 2}},
              {"ports", {{{"xps", "all"}, {"port", 0}, {"device", "HN-F"}}}},
              {"nodes", {{{"type", "HN-F"}, {"xps", "all"}, {"port", 0}}, {{"type", "DTC"}, {"at", {0, 0, 1, 0}}}}}};
}

}  // namespace

// The fixture is what the regression needs: hid-less devices bound to PCI functions with named BARs.
TEST(VmShape, FixtureHasHidlessCompanionsOfPciFunctions) {
  Discovered d(vm_spec());
  auto devices = acpi::list_devices(*d.machine);
  unsigned hidless = 0, companions = 0;
  for (const auto& dev : devices) {
    if (dev.name.starts_with("device:")) {
      ++hidless;
      EXPECT_FALSE(dev.hid.has_value()) << dev.name;
      EXPECT_FALSE(dev.has_hid("")) << dev.name;
    }
    if (dev.physical_node && dev.physical_node->starts_with("0000:00:")) ++companions;
  }
  EXPECT_EQ(hidless, 32u);
  EXPECT_EQ(companions, 6u);
  auto iomem = acpi::read_iomem(*d.machine);
  bool named_bar = false;
  for (const auto& r : iomem.ranges) named_bar |= r.name == "0000:00:01.0" && r.start == 0x4000000000ull;
  EXPECT_TRUE(named_bar);
}

// Before issue 27, every device:NN matched the devicetree entries' empty acpi_hid: 32 phantom
// arm_cmn_N, five of them over a virtio function's BAR0 (mapped through resource0).
TEST(VmShape, NoUnitIsInventedAndNothingIsMapped) {
  Discovered d(vm_spec());
  EXPECT_TRUE(d.r.inventory.units.empty()) << d.names().size() << " units, first " << d.names().front();
  EXPECT_FALSE(d.warned("arm_cmn")) << d.warnings();
  EXPECT_FALSE(d.warned("0000:00:0")) << d.warnings();
  EXPECT_EQ(d.r.inventory.platform, "");
}

TEST(VmShape, SaysWhyInOneLinePerCause) {
  Discovered d(vm_spec());
  auto why = discovery::no_access_causes(*d.machine, d.r);
  EXPECT_TRUE(any_of_has(why, "virtual machine: the CPU flags in /proc/cpuinfo include \"hypervisor\""));
  // "model\t\t: 167" is 0xa7; the family as Intel writes it.
  EXPECT_TRUE(any_of_has(why, "CPU not in pmukit's database: GenuineIntel family 6 model 0xa7 (Intel(R) Xeon(R) "
                              "Processor)"));
  EXPECT_TRUE(any_of_has(why, "no MSR device"));
  for (const auto& line : why) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
}

// A mesh whose configuration region the kernel also lists as a PCI function's BAR: the _HID says
// CMN, /proc/iomem names the range after the device, but the BAR is a PCI function's registers.
TEST(RegionProof, MeshRegionThatIsAPciBarIsNotMapped) {
  json pci = json::array({{{"bdf", "0000:00:01.0"},
                           {"id", "1af4:1045"},
                           {"bars", {{{"index", 0}, {"base", "0x50000000"}, {"size", "0x4000000"}}}}}});
  Discovered d(arm(json::array({mesh()}), {{"pci_devices", pci}}));
  const auto* pu = d.unit("arm_cmn_0");
  ASSERT_NE(pu, nullptr) << d.warnings();
  EXPECT_FALSE(pu->as<discovery::CmnUnit>()->walked);
  EXPECT_TRUE(noted(*pu, "not proven, not mapped: it overlaps BAR0 of PCI function 0000:00:01.0")) << pu->notes.front();
  // The same mesh with no BAR over it is proven and walked.
  Discovered clean(arm(json::array({mesh()})));
  ASSERT_NE(clean.unit("arm_cmn_0"), nullptr);
  EXPECT_TRUE(clean.unit("arm_cmn_0")->as<discovery::CmnUnit>()->walked) << clean.warnings();
}

// A hid file that is there but empty is as unknown as an absent one.
TEST(VmShape, EmptyHidFileMatchesNothing) {
  Discovered d(vm_spec());
  auto dir = d.dir.path() / "m/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:01";
  ASSERT_TRUE(std::filesystem::is_directory(dir));
  std::ofstream(dir / "hid") << "\n";
  Machine m(MachineOptions{d.dir.path() / "m"});
  for (const auto& dev : acpi::list_devices(m))
    if (dev.name == "device:01") {
      EXPECT_FALSE(dev.hid.has_value());
    }
  auto r = families::discover(m);
  EXPECT_TRUE(r.inventory.units.empty());
}

// MSRs 0x201e/0x710/0x711 locate Intel's discovery tables; on an AMD CPU they name nothing, and
// before issue 27 a value there was mapped through dev/mem as a table.
TEST(VmShape, IntelDiscoveryMsrsAreNotReadOnAnotherVendorsCpu) {
  Discovered d(json{{"name", "t"},
                    {"cpuinfo", {{"vendor", "AuthenticAMD"}, {"family", 26}, {"model", 2}}},
                    {"topology", {{"sockets", 1}, {"cpus_per_die", 2}}},
                    {"msr_devices", true},
                    {"msrs", {{{"cpu", 0}, {"msr", "0x201e"}, {"value", "0x1000"}}}}});
  EXPECT_TRUE(d.r.inventory.intel_tables.empty());
  // Family 0x1a model 0x02 is Zen 5 (Turin): the AMD family looks for its counters in the CPU flags,
  // which this cpuinfo does not have, and says so; nothing Intel's is read or warned about.
  EXPECT_EQ(d.r.inventory.platform, "zen5");
  EXPECT_TRUE(d.r.inventory.units.empty());
  EXPECT_NE(d.warnings().find("has no flags line: which uncore counters the CPU has is unknown"), std::string::npos)
      << d.warnings();
  EXPECT_EQ(d.warnings().find("discovery"), std::string::npos) << d.warnings();
}
