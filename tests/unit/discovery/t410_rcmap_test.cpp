// Tegra410 blocks outside CoreSight (what /proc/iomem shows as root, as non-root, or not at all)
// and the NVIDIA PCIe RC mapping (DVSEC bytes, Grace domains, per-device filters).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "discovered.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/families/coresight/nvidia_rcmap.h"
#include "pmukit/families/tegra410/tegra410_unit.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/test_support.h"

using namespace pmukit;
using discovery::T410Unit;
using json = nlohmann::json;

using test::Discovered;
using test::noted;

namespace {

json block(const std::string& hid, int uid, int count, const std::string& base) {
  return json{
      {"hid", hid},
      {"uid", uid},
      {"path", "\\_SB_.X"},
      {"instances",
       {{"count", count}, {"base", base}, {"stride", "0x10000"}, {"size", "0x1000"}, {"broadcast", "0x7f000000"}}}};
}

json arm(json extra) {
  json m{{"name", "t"}, {"cpuinfo", {{"vendor", ""}}}, {"topology", {{"sockets", 2}, {"cpus_per_die", 1}}}};
  m.update(extra);
  return m;
}

const discovery::RootPortMap* map_of(const discovery::Inventory& inv, const std::string& bdf) {
  for (const auto& m : inv.root_ports)
    if (m.device.str() == bdf) return &m;
  return nullptr;
}

}  // namespace

TEST(T410Blocks, BundledMachineListsEveryBlockWithInstancesAndBroadcast) {
  Discovered t(std::string("t410-2s"));
  const char* want[] = {"nvidia_nvlink_c2c_pmu_0", "nvidia_nvclink_pmu_1", "nvidia_nvdlink_pmu_0",
                        "nvidia_cmem_latency_pmu_1"};
  for (const char* name : want) ASSERT_NE(t.unit(name), nullptr) << name;
  const auto* c2c = t.unit("nvidia_nvlink_c2c_pmu_0");
  const auto& u = *c2c->as<T410Unit>();
  EXPECT_EQ(discovery::family_name(*c2c), "t410-c2c");
  EXPECT_EQ(u.hid, "NVDA2023");
  EXPECT_TRUE(u.exposed);
  ASSERT_EQ(u.instance_bases.size(), 14u);
  EXPECT_EQ(u.instance_bases[1], 0x33010000u);
  EXPECT_EQ(u.broadcast_base, 0x33100000u);
  EXPECT_EQ(u.region_size, 0x1000u);
  EXPECT_EQ(c2c->num_counters, 9u);
  EXPECT_TRUE(noted(*c2c, "peer (CPU or GPU) comes from _DSD"));
  const auto* cmem = t.unit("nvidia_cmem_latency_pmu_1");
  EXPECT_EQ(discovery::family_name(*cmem), "t410-cmem-latency");
  EXPECT_EQ(cmem->socket, 1);
  EXPECT_EQ(cmem->as<T410Unit>()->instance_bases.size(), 14u);
  EXPECT_EQ(t.unit("nvidia_nvdlink_pmu_0")->as<T410Unit>()->instance_bases.size(), 16u);
  EXPECT_EQ(t.unit("nvidia_nvdlink_pmu_0")->as<T410Unit>()->peer, "CXL memory");
}

TEST(T410Blocks, NonRootSeesRangesWithoutAddresses) {
  Discovered t(arm({{"iomem", {{"hide_addresses", true}}},
                    {"acpi_devices", json::array({block("NVDA2021", 0, 14, "0x40000000")})}}));
  const auto* u = t.unit("nvidia_cmem_latency_pmu_0");
  ASSERT_NE(u, nullptr);
  EXPECT_FALSE(u->as<T410Unit>()->exposed);
  EXPECT_EQ(u->as<T410Unit>()->ranges_listed, 15u);
  EXPECT_TRUE(u->as<T410Unit>()->instance_bases.empty());
  EXPECT_TRUE(noted(*u, "shows addresses only to root"));
}

TEST(T410Blocks, MissingIomemAndAbsentDevicesAreSaid) {
  json dev = block("NVDA2022", 1, 12, "0x40000000");
  dev.erase("instances");  // no MEM resources at all
  json off = block("NVDA2020", 0, 16, "0x50000000");
  off["status"] = 0;
  Discovered t(arm({{"acpi_devices", json::array({dev, off})}}));
  const auto* u = t.unit("nvidia_nvclink_pmu_1");
  ASSERT_NE(u, nullptr);
  EXPECT_TRUE(noted(*u, "no memory ranges named NVDA2022:00"));
  EXPECT_EQ(t.unit("nvidia_nvdlink_pmu_0"), nullptr);
  EXPECT_TRUE(t.warned("ACPI device NVDA2020:00 (NV-DLink): _STA 0x0 says not present: skipped"));
}

TEST(T410Blocks, WrongInstanceCountIsAWarning) {
  Discovered t(arm({{"acpi_devices", json::array({block("NVDA2023", 0, 10, "0x40000000")})}}));
  EXPECT_TRUE(t.warned("11 memory ranges in"));
  EXPECT_EQ(t.unit("nvidia_nvlink_c2c_pmu_0")->as<T410Unit>()->instance_bases.size(), 10u);
}

TEST(RcMap, T410MapsEveryRootPortFromItsDvsecBytes) {
  Discovered t(std::string("t410-2s"));
  ASSERT_EQ(t.r.inventory.root_ports.size(), 21u);
  const auto* m = map_of(t.r.inventory, "000a:e0:00.0");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->scheme, "tegra410");
  EXPECT_EQ(m->bus, 0xe0);
  EXPECT_EQ(m->segment, 0x0a);
  EXPECT_EQ(m->rp, 3);
  EXPECT_EQ(m->rc, 1);
  EXPECT_EQ(m->socket, 1);
  EXPECT_EQ(m->dvsec_offset, 0x200);
  EXPECT_EQ(m->pmus, (std::vector<std::string>{"nvidia_pcie_pmu_1_rc_1", "nvidia_pcie_tgt_pmu_1_rc_1"}));
  // The GPU endpoint 10de:2941 has no DVSEC and is not listed, as the guide's script skips it.
  EXPECT_EQ(map_of(t.r.inventory, "0009:01:00.0"), nullptr);
  // Every PMU a root port names exists in the CoreSight inventory.
  for (const auto& rp : t.r.inventory.root_ports)
    for (const auto& p : rp.pmus) EXPECT_NE(t.unit(p), nullptr) << p;
}

TEST(RcMap, EndpointsGetTheBdfFilterAndRootPortsTheRpMask) {
  Discovered t(std::string("t410-2s"));
  auto devices = pci::scan(*t.machine);
  auto find = [&](const std::string& b) -> const pci::Device& {
    for (const auto& d : devices)
      if (d.bdf.str() == b) return d;
    throw std::runtime_error(b);
  };
  auto ep = discovery::map_device(find("0005:41:00.1"), t.r.inventory.root_ports);
  ASSERT_NE(ep.map, nullptr);
  EXPECT_EQ(ep.root_port->str(), "0005:40:00.0");
  ASSERT_EQ(ep.filters.size(), 2u);
  EXPECT_EQ(ep.filters[0].pmu, "nvidia_pcie_pmu_0_rc_4");
  EXPECT_EQ(ep.filters[0].terms, "src_bdf=0x4101,src_bdf_en=1");  // (0x41 << 8) | (0 << 3) | 1
  EXPECT_EQ(ep.filters[0].example, "nvidia_pcie_pmu_0_rc_4/rd_bytes,src_bdf=0x4101,src_bdf_en=1/");
  EXPECT_EQ(ep.filters[1].terms, "dst_rp_mask=0x2");  // PCIE-TGT has no BDF filter
  auto rp = discovery::map_device(find("0002:c0:00.0"), t.r.inventory.root_ports);
  EXPECT_EQ(rp.filters[0].terms, "src_rp_mask=0x8");
  EXPECT_EQ(rp.filters[0].scope, "every device below root port 0002:c0:00.0");
}

TEST(RcMap, GraceIsDerivedFromTheDomainAndLabelled) {
  Discovered g(std::string("grace-2s"));
  ASSERT_EQ(g.r.inventory.root_ports.size(), 10u);
  const auto* m = map_of(g.r.inventory, "0018:00:00.0");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->scheme, "grace");
  EXPECT_EQ(m->socket, 1);
  EXPECT_EQ(m->rp, 8);
  EXPECT_EQ(m->rc, -1);
  EXPECT_EQ(m->pmus, std::vector<std::string>{"nvidia_pcie_pmu_1"});
  EXPECT_NE(m->source.find("derived from PCI domain 0018"), std::string::npos);
  EXPECT_NE(m->source.find("not read from hardware"), std::string::npos);
  const auto* s0 = map_of(g.r.inventory, "0008:00:00.0");
  EXPECT_EQ(s0->socket, 0);
  EXPECT_EQ(s0->rp, 8);
  auto devices = pci::scan(*g.machine);
  for (const auto& d : devices)
    if (d.bdf.str() == "0008:01:00.0") {
      auto r = discovery::map_device(d, g.r.inventory.root_ports);
      ASSERT_EQ(r.filters.size(), 1u);
      EXPECT_EQ(r.filters[0].terms, "root_port=0x100");  // the guide's example value
    }
}

TEST(RcMap, ShortOrInconsistentDvsecsAreWarnings) {
  json rps = json::array({json{{"bdf", "0001:00:00.0"},
                               {"id", "10de:22d8"},
                               {"rcmap", {{"at", "0x200"}, {"rp", 0}, {"rc", 0}, {"socket", 0}, {"len", "0x10"}}}},
                          json{{"bdf", "0002:80:00.0"},
                               {"id", "10de:22d8"},
                               {"rcmap", {{"at", "0x200"}, {"rp", 9}, {"rc", 1}, {"socket", 0}, {"segment", 7}}}}});
  Discovered t(arm({{"pcie_root_ports", rps}}));
  EXPECT_TRUE(t.warned("0001:00:00.0 DVSEC 10de:0004 @0x200: length 0x10 does not cover byte "
                       "+0x10: RC mapping not read"));
  EXPECT_TRUE(t.warned("0002:80:00.0 DVSEC 10de:0004 @0x200: says segment 07 bus 80, but the device is at 0002:80"));
  EXPECT_TRUE(t.warned("RP# 9 does not fit the 8-bit root-port filter"));
  ASSERT_EQ(t.r.inventory.root_ports.size(), 1u);
}

TEST(RcMap, DevicesWithoutAMappedRootPortSayWhy) {
  Discovered t(std::string("yitian"));
  auto devices = pci::scan(*t.machine);
  for (const auto& d : devices) {
    auto r = discovery::map_device(d, t.r.inventory.root_ports);
    EXPECT_EQ(r.map, nullptr);
    if (d.bdf.str() == "0000:b1:00.0") {
      EXPECT_NE(r.error.find("its root port 0000:b0:00.0 has no NVIDIA RC mapping"), std::string::npos) << r.error;
    }
    if (d.bdf.str() == "0000:7c:00.0") {
      EXPECT_NE(r.error.find("no root port above it"), std::string::npos) << r.error;
    }
  }
}
