// Intel Xeons before the PMON discovery tables (issue 32): on the bundled Cascade Lake machine
// (clx-2s) the boxes come from the kernel's fixed tables (platforms/intel/skx.json), named and
// counted as Linux uncore_snbep.c names and counts them: skx_uncore_imc's six channels (device IDs
// 0x2042/0x2046/0x204a at 10.2, 10.6, 11.2, 12.2, 12.6, 13.2), skx_uncore_m2m's two, skx_uncore_upi's
// three, skx_uncore_m2pcie's four and skx_uncore_m3upi's three per socket; the CHAs counted from
// CAPID6 (skx_count_chabox: the set bits of 0x9c bits 27:0 of device 0x2083); the MSR boxes
// (skx_uncore_iio 6, skx_uncore_irp 6, skx_uncore_pcu 1) on every socket; PCI boxes on the socket
// their bus belongs to by the UBOX node ID registers (snbep_pci2phy_map_init).
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

// Units of a type (uncore_<type>, uncore_<type>_N) per socket.
std::map<int, int> per_socket(const Discovered& d, const std::string& type) {
  std::map<int, int> n;
  for (const auto& u : d.r.inventory.units)
    if (u.type_name == type) ++n[u.socket];
  return n;
}

const discovery::PmuUnit* unit_on(const Discovered& d, const std::string& name, int socket) {
  for (const auto& u : d.r.inventory.units)
    if (u.name == name && u.socket == socket) return &u;
  return nullptr;
}

}  // namespace

TEST(KernelBoxes, CascadeLakeBoxesAreNamedAndCountedAsTheKernelDoes) {
  Discovered d(std::string("clx-2s"));
  EXPECT_EQ(d.r.inventory.platform, "skx");
  const std::map<int, int> both = {{0, 6}, {1, 6}};
  EXPECT_EQ(per_socket(d, "imc"), both) << d.warnings();
  EXPECT_EQ(per_socket(d, "iio"), both);
  EXPECT_EQ(per_socket(d, "irp"), both);
  EXPECT_EQ(per_socket(d, "cha"), (std::map<int, int>{{0, 28}, {1, 28}}));
  EXPECT_EQ(per_socket(d, "m2m"), (std::map<int, int>{{0, 2}, {1, 2}}));
  EXPECT_EQ(per_socket(d, "upi"), (std::map<int, int>{{0, 3}, {1, 3}}));
  EXPECT_EQ(per_socket(d, "m2pcie"), (std::map<int, int>{{0, 4}, {1, 4}}));
  EXPECT_EQ(per_socket(d, "m3upi"), (std::map<int, int>{{0, 3}, {1, 3}}));
  EXPECT_EQ(per_socket(d, "pcu"), (std::map<int, int>{{0, 1}, {1, 1}}));
  for (const char* name : {"uncore_imc_0", "uncore_imc_5", "uncore_cha_27", "uncore_iio_5", "uncore_irp_0",
                           "uncore_m2m_1", "uncore_upi_2", "uncore_m2pcie_3", "uncore_m3upi_2", "uncore_pcu"})
    EXPECT_TRUE(unit_on(d, name, 0) && unit_on(d, name, 1)) << name;
  EXPECT_FALSE(d.unit("uncore_cha_28"));
  // Box 4 is MC1 channel 1: device 0x2046 at 12.6, on socket 1's bus 0xae. Its registers are
  // skx_uncore_imc's: box control 0xf4, controls 0xd8 + 4i, counters 0xa0 + 8i, fixed counter 0xd0
  // and its control 0xf0, 4 counters of 48 bits.
  const auto* imc = unit_on(d, "uncore_imc_4", 1);
  ASSERT_TRUE(imc);
  const auto& iu = *imc->as<discovery::IntelUnit>();
  EXPECT_EQ(iu.pci_device->str(), "0000:ae:0c.6");
  EXPECT_EQ(iu.box_ctl, 0xf4u);
  EXPECT_EQ(iu.ctl, (std::vector<std::uint64_t>{0xd8, 0xdc, 0xe0, 0xe4}));
  EXPECT_EQ(iu.ctr, (std::vector<std::uint64_t>{0xa0, 0xa8, 0xb0, 0xb8}));
  EXPECT_EQ(iu.fixed_ctl, 0xf0u);
  EXPECT_EQ(iu.fixed_ctr, 0xd0u);
  EXPECT_EQ(imc->num_counters, 4u);
  EXPECT_EQ(imc->counter_width, 48u);
  EXPECT_EQ(imc->pmu_kind, "intel_skx_imc");
  // CHA 3 of socket 1: HSWEP_C0_MSR_PMON_BOX_CTL 0xe00 + HSWEP_CBO_MSR_OFFSET 0x10 * 3, through a
  // CPU of socket 1 (CPUs 4-7).
  const auto& cha = *unit_on(d, "uncore_cha_3", 1)->as<discovery::IntelUnit>();
  EXPECT_EQ(cha.box_ctl, 0xe30u);
  EXPECT_EQ(cha.ctl.front(), 0xe31u);
  EXPECT_EQ(cha.ctr.front(), 0xe38u);
  EXPECT_EQ(cha.msr_cpu, 4);
  // Its filter: HSWEP_C0_MSR_PMON_BOX_FILTER0 0xe05 + 0x10 * 3, FILTER1 the next MSR (skx_cha_hw_config,
  // hswep_cbox_enable_event); an IMC channel has none.
  EXPECT_EQ(cha.filter, std::optional<std::uint64_t>{0xe35});
  EXPECT_EQ(cha.filter_high, std::optional<std::uint64_t>{0xe36});
  EXPECT_FALSE(iu.filter);
}

// The CHA count is CAPID6's (skx_count_chabox), and PCI boxes follow the UBOX map, not the NUMA node.
TEST(KernelBoxes, ChaCountAndSocketsComeFromTheMachine) {
  auto spec = bundled_spec("clx-2s");
  for (auto& dev : spec.at("pci_devices")) {
    dev["numa_node"] = -1;  // the UBOX map alone places the PCI boxes
    if (dev.at("id") == "8086:2083") dev["config_writes"] = json::array({json{{"at", "0x9c"}, {"u32", "0x1f"}}});
  }
  Discovered d(spec);
  EXPECT_EQ(per_socket(d, "cha"), (std::map<int, int>{{0, 5}, {1, 5}})) << d.warnings();
  EXPECT_EQ(per_socket(d, "imc"), (std::map<int, int>{{0, 6}, {1, 6}})) << d.warnings();
  EXPECT_EQ(unit_on(d, "uncore_imc_0", 1)->as<discovery::IntelUnit>()->pci_device->str(), "0000:ae:0a.2");
}

// Skylake-SP's PCU box control and first counter control are MSRs 0x710 and 0x711, which Diamond
// Rapids uses as discovery table pointers: on this model what they hold is not read as a table.
TEST(KernelBoxes, PcuMsrsAreNotReadAsDiscoveryTablePointers) {
  auto spec = bundled_spec("clx-2s");
  spec["msrs"].push_back(json{{"cpu", 0}, {"msr", "0x710"}, {"value", "0x100"}});
  spec["msrs"].push_back(json{{"cpu", 0}, {"msr", "0x711"}, {"value", "0x400000"}});
  Discovered d(spec);
  EXPECT_EQ(d.r.inventory.intel_tables.size(), 2u);
  EXPECT_FALSE(d.warned("MSR 0x71")) << d.warnings();
  EXPECT_TRUE(unit_on(d, "uncore_pcu", 0));
}
