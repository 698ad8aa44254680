// Arm CMN meshes found the way Linux finds them (ACPI devices and /proc/iomem, the devicetree) on
// machines built from specs, and the bundled Yitian 710 mesh against the Alibaba Yitian 710 CMN
// interconnect bandwidth guide's node listing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "discovered.h"
#include "pmukit/families/cmn/cmn_discovery.h"
#include "pmukit/families/cmn/cmn_mesh.h"
#include "pmukit/families/cmn/cmn_unit.h"

using namespace pmukit;
using discovery::CmnNode;
using discovery::CmnUnit;
using json = nlohmann::json;
using test::Discovered;
using test::noted;

namespace {

json arm(json cmn) {
  return json{
      {"name", "t"}, {"cpuinfo", {{"vendor", ""}}}, {"topology", {{"sockets", 1}, {"cpus_per_die", 2}}}, {"cmn", cmn}};
}

// A 2 x 2 mesh with a DTC and one HN-F per XP.
json mesh(json extra) {
  json m{{"base", "0x50000000"},
         {"size", "0x4000000"},
         {"part", "0x43c"},
         {"mesh", {2, 2}},
         {"ports",
          {{{"xps", "all"}, {"port", 0}, {"device", "HN-F"}}, {{"xps", {{0, 0}}}, {"port", 1}, {"device", "HN-D"}}}},
         {"nodes", {{{"type", "HN-F"}, {"xps", "all"}, {"port", 0}}, {{"type", "DTC"}, {"at", {0, 0, 1, 0}}}}}};
  if (!extra.is_null()) m.update(extra);
  return m;
}

const CmnUnit* cmn(const Discovered& d, const std::string& name) {
  const auto* u = d.unit(name);
  return u ? u->as<CmnUnit>() : nullptr;
}

const CmnNode* node(const CmnUnit& u, std::uint16_t id, std::uint16_t type) {
  for (const auto& n : u.nodes)
    if (n.id == id && n.type == type) return &n;
  return nullptr;
}

}  // namespace

// The guide's listing (Alibaba Yitian 710 CMN interconnect bandwidth guide, section 2):
//   nodeid=0x1b5(437), logid=0x7, type=0x105(CCLA), (x,y,portid,devid)=(3,6,1,1) ... eight lines.
TEST(CmnDiscovery, BundledYitianHasTheGuidesCclaNodes) {
  Discovered y(std::string("yitian"));
  const auto* pu = y.unit("arm_cmn_0");
  ASSERT_NE(pu, nullptr) << y.warnings();
  EXPECT_EQ(discovery::family_name(*pu), "arm-cmn");
  const auto& u = *pu->as<CmnUnit>();
  EXPECT_TRUE(u.walked);
  EXPECT_EQ(u.part_name, "CMN-700");
  EXPECT_EQ(u.firmware, "ACPI ARMHC700:00 \\_SB_.CMN0");
  EXPECT_EQ(u.base, 0x40000000u);
  EXPECT_EQ(u.mesh_x, 4u);
  EXPECT_EQ(u.mesh_y, 10u);
  EXPECT_EQ(y.warnings(), "");
  struct Line {
    std::uint16_t id, logid;
    unsigned x, y, port, dev;
  } guide[] = {{437, 0x7, 3, 6, 1, 1}, {429, 0x6, 3, 5, 1, 1}, {421, 0x5, 3, 4, 1, 1}, {413, 0x4, 3, 3, 1, 1},
               {457, 0xa, 3, 9, 0, 1}, {385, 0x2, 3, 0, 0, 1}, {329, 0x8, 2, 9, 0, 1}, {257, 0x0, 2, 0, 0, 1}};
  auto cclas = discovery::cmn_nodes_sorted(u, {0x105});
  EXPECT_EQ(cclas.size(), 8u);
  for (const auto& g : guide) {
    const auto* n = node(u, g.id, 0x105);
    ASSERT_NE(n, nullptr) << g.id;
    EXPECT_EQ(n->logid, g.logid) << g.id;
    EXPECT_EQ(std::make_tuple(n->x, n->y, n->port, n->dev), std::make_tuple(g.x, g.y, g.port, g.dev)) << g.id;
    EXPECT_EQ(n->dtc, 0);
  }
  // 32 CPU ports with two RN-SAMs each are external: never read, and said so.
  EXPECT_EQ(u.skipped.size(), 64u);
  EXPECT_TRUE(noted(*pu, "64 child node(s) not read"));
  EXPECT_EQ(u.dtcs.size(), 1u);
  EXPECT_EQ(u.dtms.size(), 40u);
}

TEST(CmnDiscovery, AcpiCmn600HasItsRootNodeAsASecondResource) {
  Discovered d(arm(json::array({mesh({{"hid", "ARMHC600"}, {"part", "0x434"}, {"root_offset", "0x40000"}})})));
  const auto* u = cmn(d, "arm_cmn_0");
  ASSERT_NE(u, nullptr) << d.warnings();
  EXPECT_EQ(u->root_offset, 0x40000u);
  EXPECT_TRUE(u->walked) << d.warnings();
  EXPECT_EQ(u->part_name, "CMN-600");
  EXPECT_EQ(u->nodes.size(), 9u);  // 4 XPs, 4 HN-F, DTC
  // CMN-600 XPs do not say their DTC domain; with one DTC it can only be domain 0.
  for (const auto& n : u->nodes) EXPECT_EQ(n.dtc, 0);
  EXPECT_EQ(d.warnings(), "");
}

TEST(CmnDiscovery, DevicetreeNodes) {
  // The loaded arm-cmn driver claims the region: /proc/iomem names it after the node, the second
  // source that proves it (without it, the node's reg alone is not mapped).
  Discovered d(arm(json::array(
      {mesh({{"compatible", "arm,cmn-700"}, {"kernel_pmu", "arm_cmn_0"}}),
       mesh(
           {{"compatible", "arm,cmn-600"}, {"base", "0x60000000"}, {"part", "0x434"}, {"kernel_pmu", "arm_cmn_1"}})})));
  const auto* u = cmn(d, "arm_cmn_0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->firmware, "devicetree /cmn@50000000");
  EXPECT_EQ(u->device, "50000000.cmn");
  EXPECT_EQ(u->size, 0x4000000u);
  EXPECT_TRUE(u->walked);
  // A CMN-600 node without arm,root-node: Linux cannot probe it, pmukit does not guess.
  const auto* u600 = d.unit("arm_cmn_1");
  ASSERT_NE(u600, nullptr);
  EXPECT_FALSE(u600->as<CmnUnit>()->walked);
  EXPECT_TRUE(noted(*u600, "has no arm,root-node property")) << u600->notes.front();
  Discovered unclaimed(arm(json::array({mesh({{"compatible", "arm,cmn-700"}})})));
  const auto* pu = unclaimed.unit("arm_cmn_0");
  ASSERT_NE(pu, nullptr);
  EXPECT_FALSE(pu->as<CmnUnit>()->walked);
  EXPECT_TRUE(noted(*pu, "not proven, not mapped")) << pu->notes.front();
}

TEST(CmnDiscovery, NamesFollowTheKernelPmuOrTheOrderFound) {
  Discovered d(arm(json::array({mesh({{"uid", 0}, {"kernel_pmu", "arm_cmn_1"}}),
                                mesh({{"uid", 1}, {"base", "0x60000000"}, {"kernel_pmu", "arm_cmn_0"}})})));
  ASSERT_NE(cmn(d, "arm_cmn_1"), nullptr) << d.warnings();
  EXPECT_EQ(cmn(d, "arm_cmn_1")->device, "ARMHC700:00");
  EXPECT_EQ(cmn(d, "arm_cmn_0")->device, "ARMHC700:01");
  EXPECT_TRUE(noted(*d.unit("arm_cmn_1"), "the kernel's arm-cmn driver has this mesh as arm_cmn_1"));
  Discovered two(arm(json::array({mesh({}), mesh({{"base", "0x60000000"}})})));
  EXPECT_EQ(cmn(two, "arm_cmn_1")->device, "ARMHC700:01");
  EXPECT_TRUE(noted(*two.unit("arm_cmn_0"), "named in the order found"));
}

TEST(CmnDiscovery, HiddenAddressesAndUnmappableRegions) {
  json spec = arm(json::array({mesh({})}));
  spec["iomem"] = {{"hide_addresses", true}};
  Discovered hidden(spec);
  const auto* pu = hidden.unit("arm_cmn_0");
  ASSERT_NE(pu, nullptr);
  EXPECT_FALSE(pu->as<CmnUnit>()->walked);
  EXPECT_TRUE(noted(*pu, "shows addresses only to root")) << pu->notes.front();
  MachineOptions opts;
  opts.overrides["devmem.path"] = "/nonexistent/mem";
  Discovered nomem(arm(json::array({mesh({})})), opts);
  const auto* u = nomem.unit("arm_cmn_0");
  ASSERT_NE(u, nullptr);
  EXPECT_FALSE(u->as<CmnUnit>()->walked);
  EXPECT_TRUE(noted(*u, "the configuration region cannot be mapped")) << u->notes.front();
  EXPECT_TRUE(nomem.warned("arm_cmn_0 (ARMHC700:00): configuration region 0x50000000+0x4000000 not mapped"));
}

TEST(CmnDiscovery, MultipleDtcDomainsAndDtms) {
  Discovered d(arm(json::array({mesh({{"multi_dtm", true},
                                      {"dtc_domains", {{{"xps", {{"y", "1"}}}, {"domain", 1}}}},
                                      {"ports",
                                       {{{"xps", "all"}, {"port", 0}, {"device", "HN-F"}},
                                        {{"xps", {{0, 0}, {0, 1}}}, {"port", 2}, {"device", "HN-D"}}}},
                                      {"nodes",
                                       {{{"type", "HN-F"}, {"xps", "all"}, {"port", 0}},
                                        {{"type", "DTC"}, {"at", {0, 0, 2, 0}}},
                                        {{"type", "DTC"}, {"at", {0, 1, 2, 0}}}}}})})));
  const auto* u = cmn(d, "arm_cmn_0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(d.warnings(), "");
  ASSERT_EQ(u->dtcs.size(), 2u);
  // 2 x 2, 2-bit coordinates; XP (0,1) = 1 << 3 = 0x08 has port 2, so 2 port bits: its DTC on port 2
  // device 0 is 0x08 | 2 << 1 = 0x0c, and counts in the XP's DTM 1 (port / 2).
  const auto* dtc1 = node(*u, 0x0c, 0x3);
  ASSERT_NE(dtc1, nullptr);
  EXPECT_EQ(dtc1->dtc, 1);
  EXPECT_EQ(u->dtms[static_cast<unsigned>(dtc1->dtm)].index, 1u);
  EXPECT_EQ(u->nodes[u->dtcs[1].node].id, 0x0c);
  const auto* hnf = node(*u, 0x20, 0x5);  // XP (1,0) port 0 device 0
  ASSERT_NE(hnf, nullptr);
  EXPECT_EQ(hnf->dtc, 0);
}

TEST(CmnDiscovery, AbsentDevicesAndNoCmn) {
  Discovered none(json{{"name", "t"}, {"cpuinfo", {{"vendor", ""}}}, {"topology", {{"sockets", 1}}}});
  EXPECT_TRUE(none.r.inventory.units.empty());
  Discovered off(arm(json::array({mesh({{"status", 0}})})));
  EXPECT_EQ(off.unit("arm_cmn_0"), nullptr);
  EXPECT_TRUE(off.warned("ACPI device ARMHC700:00: _STA 0x0 says not present: skipped"));
}
