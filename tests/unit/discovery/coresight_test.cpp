// CoreSight discovery through the APMT: identification (impl_id > PMIIDR > PMPIDR), kernel names
// for every backend, sockets from processor affinity (processor and container), the RC# from the
// kernel PMU, and bad input (broken APMT, unmappable pages, unknown UIDs) as warnings.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "discovered.h"
#include "pmukit/access/machine.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/families/coresight/coresight_discovery.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/coresight/coresight_unit.h"
#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/test_support.h"

using namespace pmukit;
using discovery::CoreSightUnit;
using json = nlohmann::json;

using test::Discovered;
using test::noted;

namespace {

json node(int id, const json& type, const std::string& base, const std::string& pmiidr, json extra = json::object()) {
  json n{{"id", id},
         {"type", type},
         {"base0", base},
         {"proc_affinity", 0},
         {"registers", {{"pmcfgr", "0x5f07"}, {"pmcr", "0x0"}, {"pmiidr", pmiidr}}}};
  n.update(extra);
  return n;
}

// Two sockets x 2 CPUs, ACPI processors with UIDs 0..3 in containers 0 and 1, and an APMT.
json arm(json nodes, json extra = json::object()) {
  json m{{"name", "t"},
         {"cpuinfo", {{"vendor", ""}, {"implementer", "0x41"}}},
         {"topology", {{"sockets", 2}, {"cpus_per_die", 2}}},
         {"acpi_processors", {{"containers", true}}},
         {"apmt", {{"nodes", std::move(nodes)}}}};
  m.update(extra);
  return m;
}

}  // namespace

TEST(CoreSight, Grace2sInventoryIsComplete) {
  Discovered g(std::string("grace-2s"));
  std::vector<std::string> want = {"nvidia_scf_pmu_0",         "nvidia_pcie_pmu_0",        "nvidia_nvlink_c2c0_pmu_0",
                                   "nvidia_nvlink_c2c1_pmu_0", "nvidia_cnvlink_pmu_0",     "nvidia_scf_pmu_1",
                                   "nvidia_pcie_pmu_1",        "nvidia_nvlink_c2c0_pmu_1", "nvidia_nvlink_c2c1_pmu_1",
                                   "nvidia_cnvlink_pmu_1"};
  EXPECT_EQ(g.names(), want);
  EXPECT_TRUE(g.r.inventory.warnings.empty()) << g.r.inventory.warnings.front();
  const auto* pcie = g.unit("nvidia_pcie_pmu_1");
  ASSERT_NE(pcie, nullptr);
  const auto& c = *pcie->as<CoreSightUnit>();
  EXPECT_EQ(c.product, "Grace PCIe");
  EXPECT_EQ(c.implementer, "NVIDIA");
  EXPECT_EQ(c.kernel_module, "nvidia_cspmu");
  EXPECT_EQ(pcie->socket, 1);
  EXPECT_EQ(c.numa_node, 1);
  EXPECT_EQ(c.cpus, (std::vector<int>{4, 5, 6, 7}));  // processor container 1
  EXPECT_EQ(pcie->num_counters, 9u);
  EXPECT_EQ(pcie->counter_width, 64u);
  EXPECT_TRUE(c.has_cycle_counter);
  EXPECT_TRUE(c.dual_page);
  EXPECT_EQ(c.base1, c.base0 + 0x10000);
  ASSERT_EQ(pcie->filters.size(), 1u);
  EXPECT_EQ(pcie->filters[0].name, "root_port");
  EXPECT_EQ(pcie->filters[0].format, "config1:0-9");
  EXPECT_EQ(c.kernel_pmu, "nvidia_pcie_pmu_1");
  // The socket-1 CNVLink block reads PMIIDR 0: identity from PMPIDR0-4.
  const auto& cn = *g.unit("nvidia_cnvlink_pmu_1")->as<CoreSightUnit>();
  EXPECT_EQ(cn.pmiidr_source, "PMPIDR");
  EXPECT_EQ(cn.pmiidr.raw, 0x1060036bu);
  EXPECT_EQ(cn.product, "Grace CNVLink");
  ASSERT_TRUE(g.r.inventory.apmt);
  EXPECT_EQ(g.r.inventory.apmt->nodes, 10u);
  EXPECT_TRUE(g.r.inventory.apmt->checksum_ok);
  EXPECT_EQ(g.mmaps, 20u);  // page 0 and page 1 of each dual-page node
}

TEST(CoreSight, T410RcComesFromTheKernelPmuOfEachNode) {
  Discovered t(std::string("t410-2s"));
  int pcie = 0, tgt = 0;
  for (const auto& u : t.r.inventory.units) {
    const auto* c = u.as<CoreSightUnit>();
    if (!c) continue;
    if (c->product == "Tegra410 PCIE") ++pcie;
    if (c->product == "Tegra410 PCIE-TGT") ++tgt;
  }
  EXPECT_EQ(pcie, 12);
  EXPECT_EQ(tgt, 12);
  const auto* u = t.unit("nvidia_pcie_tgt_pmu_1_rc_3");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->as<CoreSightUnit>()->rc, 3);
  EXPECT_EQ(u->as<CoreSightUnit>()->acpi_device, "NVDA2A01:9");
  EXPECT_EQ(u->socket, 1);
  ASSERT_NE(t.unit("nvidia_ucf_pmu_0"), nullptr);
  EXPECT_EQ(t.unit("nvidia_ucf_pmu_0")->filters.size(), 7u);
  EXPECT_TRUE(t.r.inventory.warnings.empty()) << t.r.inventory.warnings.front();
}

TEST(CoreSight, RcUnknownWithoutTheDriverIsSaidNotGuessed) {
  Discovered t(
      arm(json::array({node(0, "acpi", "0x20000000", "0x1030136b", {{"hid", "NVDA2A00"}, {"inst_secondary", 4}})})));
  const auto* u = t.unit("nvidia_pcie_pmu_0_rc_?");
  ASSERT_NE(u, nullptr) << t.names().front();
  EXPECT_EQ(u->as<CoreSightUnit>()->rc, -1);
  EXPECT_TRUE(noted(*u, "RC# unknown: Linux takes it from _DSD \"instance_id\" of ACPI device NVDA2A00:4"));
}

TEST(CoreSight, ImplIdOverridesPmiidrAndNamesFollowEachBackend) {
  json nodes = json::array({
      node(0, "mc", "0x20000000", "0x0000043b"),    // Arm: generic driver
      node(1, "mc", "0x20010000", "0x0000043b"),    // second mc
      node(2, "smmu", "0x20020000", "0x0000043b"),  // per-type index
      node(3, "acpi", "0x20030000", "0x0000043b", {{"hid", "ARMH1234"}, {"inst_secondary", 7}}),
      node(4, "mc", "0x20040000", "0x12345a16"),                                             // Ampere
      node(5, "mc", "0x20050000", "0x00000a16"), node(6, "mc", "0x20060000", "0x7770036b"),  // NVIDIA, unknown product
      node(7, "mc", "0x20070000", "0x0000043b", {{"impl_id", "0x2cf0036b"}}),                // impl_id wins: SCF
  });
  Discovered t(arm(nodes));
  std::vector<std::string> want = {
      "arm_cspmu_mc_0",   "arm_cspmu_mc_1",   "arm_cspmu_smmu_0",    "arm_cspmu_acpi_ARMH1234_7",
      "ampere_mcu_pmu_0", "ampere_mcu_pmu_1", "nvidia_uncore_pmu_0", "nvidia_scf_pmu_0"};
  EXPECT_EQ(t.names(), want);
  const auto& generic = *t.unit("arm_cspmu_mc_0");
  EXPECT_EQ(generic.as<CoreSightUnit>()->implementer, "Arm");
  EXPECT_EQ(generic.as<CoreSightUnit>()->product, "generic CoreSight PMU");
  EXPECT_EQ(generic.pmu_kind, "coresight_generic");
  EXPECT_EQ(generic.num_counters, 8u);    // PMCFGR.N = 7
  EXPECT_EQ(generic.counter_width, 32u);  // PMCFGR.SIZE = 31
  EXPECT_TRUE(noted(*t.unit("nvidia_uncore_pmu_0"), "product 0x777 is not in the kernel's table"));
  const auto& scf = *t.unit("nvidia_scf_pmu_0")->as<CoreSightUnit>();
  EXPECT_EQ(scf.pmiidr_source, "APMT impl_id");
  EXPECT_EQ(scf.pmiidr_register.raw, 0x43bu);
  EXPECT_TRUE(noted(*t.unit("nvidia_scf_pmu_0"), "APMT impl_id 0x2cf0036b overrides PMIIDR 0x0000043b"));
  EXPECT_EQ(t.unit("ampere_mcu_pmu_0")->as<CoreSightUnit>()->kernel_module, "ampere_cspmu");
}

TEST(CoreSight, PmpidrRebuildsPmiidr) {
  namespace cs = regs::coresight;
  const cs::PeripheralIds p{RegValue<cs::Pmpidr0>{0xf2}, RegValue<cs::Pmpidr1>{0xb2}, RegValue<cs::Pmpidr2>{0x1e},
                            RegValue<cs::Pmpidr3>{0x30}, RegValue<cs::Pmpidr4>{0x03}};
  // part 0x2f2, des 0x6b/0x3, variant 1, revision 3 -> 0x2f21336b
  EXPECT_EQ(regs::coresight::pmiidr_from_pmpidr(p).raw, 0x2f21336bu);
}

TEST(CoreSight, SocketFollowsProcessorAffinityAndNumaNode) {
  json nodes = json::array({node(0, "mc", "0x20000000", "0x2cf0036b", {{"proc_affinity", 3}}),
                            node(1, "mc", "0x20010000", "0x2cf0036b", {{"proc_affinity", 0}, {"container", true}}),
                            node(2, "mc", "0x20020000", "0x2cf0036b", {{"proc_affinity", 99}})});
  Discovered t(arm(nodes));
  ASSERT_EQ(t.r.inventory.units.size(), 3u);
  EXPECT_EQ(t.r.inventory.units[0].name,
            "nvidia_scf_pmu_1");  // ACPI processor UID 3 = CPU 3, node 1
  EXPECT_EQ(t.r.inventory.units[0].socket, 1);
  EXPECT_EQ(t.r.inventory.units[1].name, "nvidia_scf_pmu_0");  // container 0 = CPUs 0,1
  EXPECT_EQ(t.r.inventory.units[1].as<CoreSightUnit>()->cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(t.r.inventory.units[2].name, "nvidia_scf_pmu_?");
  EXPECT_TRUE(noted(t.r.inventory.units[2], "processor UID 99 matches no ACPI processor"));
}

TEST(CoreSight, BrokenApmtIsOneWarningAndNoUnits) {
  json n = node(0, "mc", "0x20000000", "0x2cf0036b", {{"length", 0}});
  Discovered t(arm(json::array({n})));
  EXPECT_TRUE(t.r.inventory.units.empty());
  EXPECT_TRUE(t.warned("node 0 @0x24: length 0: APMT not used")) << t.r.inventory.warnings.front();
  EXPECT_FALSE(t.r.inventory.apmt);
}

TEST(CoreSight, BadChecksumIsAWarningAndTheTableIsStillUsed) {
  json m = arm(json::array({node(0, "mc", "0x20000000", "0x2cf0036b")}));
  m["apmt"]["bad_checksum"] = true;
  Discovered t(m);
  EXPECT_EQ(t.r.inventory.units.size(), 1u);
  EXPECT_TRUE(t.warned("checksum"));
  EXPECT_FALSE(t.r.inventory.apmt->checksum_ok);
}

TEST(CoreSight, UnmappablePageAndUnknownTypeAreSkippedWithWarnings) {
  json nodes = json::array({node(0, "mc", "0x20000000", "0x2cf0036b"), node(1, 5, "0x20010000", "0x2cf0036b"),
                            json{{"id", 2}, {"type", "mc"}, {"base0", "0x7fff0000000"}}});
  Discovered t(arm(nodes));
  EXPECT_EQ(t.r.inventory.units.size(), 1u);
  EXPECT_TRUE(t.warned("node 1 (id 0x1) @0x5c: skipped: node type 5 is unknown"));
  EXPECT_TRUE(t.warned("node 2 (id 0x2) @0x94: skipped: 0x7fff0000000+0x1000: cannot map"));
}

TEST(CoreSight, KernelNameDisagreementIsReported) {
  Discovered t(arm(json::array({node(0, "mc", "0x20000000", "0x2cf0036b", {{"kernel_pmu", "nvidia_scf_pmu_7"}})})));
  EXPECT_TRUE(t.warned("the kernel registered it as nvidia_scf_pmu_7, pmukit names it nvidia_scf_pmu_0"));
}

// Linux 6.6's apmt.c allocated the platform device with PLATFORM_DEVID_AUTO, so /proc/iomem and
// sysfs name it arm-cs-arch-pmu.<N>.auto, N counted by the kernel (not the APMT node id); current
// Linux names it arm-cs-arch-pmu.<node id>. A machine with the older names is discovered the same:
// its pages are proven by the .auto ranges and the kernel PMUs found under those devices.
TEST(CoreSight, KernelsThatNameTheDeviceAutoProveThePagesToo) {
  namespace fs = std::filesystem;
  test::TempDir dir;
  fs::path root = dir.path() / "m";
  families::build_bundled("grace-2s", root);
  auto renamed = [](int id) { return fmt::format("arm-cs-arch-pmu.{}.auto", 20 - id); };
  std::string iomem;
  {
    std::ifstream in(root / "proc/iomem");
    iomem.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (int id = 9; id >= 0; --id) {
    std::string old = fmt::format("arm-cs-arch-pmu.{}", id);
    for (auto at = iomem.find(old + "\n"); at != std::string::npos; at = iomem.find(old + "\n"))
      iomem.replace(at, old.size(), renamed(id));
    fs::rename(root / "sys/devices/platform" / old, root / "sys/devices/platform" / renamed(id));
  }
  std::ofstream(root / "proc/iomem") << iomem;
  for (const auto& link : fs::directory_iterator(root / "sys/bus/event_source/devices")) {
    std::string target = fs::read_symlink(link.path()).string();
    auto at = target.find("arm-cs-arch-pmu.");
    if (at == std::string::npos) continue;
    auto end = target.find('/', at);
    int id = std::stoi(target.substr(at + 16, end - at - 16));
    fs::remove(link.path());
    fs::create_symlink(target.substr(0, at) + renamed(id) + target.substr(end), link.path());
  }
  Machine m(MachineOptions{.root = root});
  auto r = families::discover(m);
  ASSERT_EQ(r.inventory.units.size(), 10u) << (r.inventory.warnings.empty() ? "" : r.inventory.warnings.front());
  for (const auto& u : r.inventory.units) {
    const auto& c = *u.as<CoreSightUnit>();
    EXPECT_TRUE(c.platform_device.ends_with(".auto")) << c.platform_device;
    EXPECT_EQ(c.kernel_pmu, u.name);  // found under the .auto device
  }
}

// An Arm machine's CPU model names no platform; its PMUs do (the "platform" of their kind in
// platforms/pmus/): every bundled Arm machine has one, and an x86 machine keeps its CPU model's.
TEST(PlatformFromPmus, EveryBundledArmMachineIsNamedByItsPmusAndX86ByItsCpu) {
  const std::pair<const char*, const char*> machines[] = {
      {"grace-2s", "grace"}, {"t410-2s", "t410"}, {"yitian", "arm-cmn"}, {"milan-2s", "zen3"}, {"clx-2s", "skx"}};
  for (const auto& [machine, platform] : machines) {
    test::Discovered d{std::string(machine)};
    EXPECT_EQ(d.r.inventory.platform, platform) << machine;
    EXPECT_FALSE(d.r.inventory.platform_description.empty()) << machine;
  }
}
