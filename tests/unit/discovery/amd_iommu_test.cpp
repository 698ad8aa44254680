// AMD IOMMU performance counter discovery from machine specs: the PCI functions of class 0806h
// with the IOMMU capability, named amd_iommu_<n> in PCI order, their MMIO base from the
// capability, and the counter banks read only from a region /proc/iomem gives the kernel's
// "amd_iommu" claim (Linux drivers/iommu/amd/init.c iommu_map_mmio_space, init_iommu_perf_ctr);
// otherwise a note says why nothing was read.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "discovered.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/amd/amd_iommu_unit.h"

using namespace pmukit;
using json = nlohmann::json;

namespace {

json machine(json iommus, json iomem = json::array()) {
  json ranges = json::array({{{"start", "0x100000"}, {"end", "0x7fffffff"}, {"name", "System RAM"}}});
  for (auto& r : iomem) ranges.push_back(r);
  return {{"name", "amd-iommu"},
          {"cpuinfo", {{"vendor", "AuthenticAMD"}, {"family", 25}, {"model", 17}}},
          {"topology", {{"sockets", 2}, {"dies_per_socket", 1}, {"cpus_per_die", 2}}},
          {"iomem", {{"ranges", ranges}}},
          {"amd_iommus", std::move(iommus)}};
}

const discovery::AmdIommuUnit& details(const discovery::PmuUnit* u) {
  EXPECT_NE(u, nullptr);
  return *u->as<discovery::AmdIommuUnit>();
}

// Every note of the unit, for an assertion's message ("(no notes)" when there are none).
std::string all_notes(const discovery::PmuUnit& u) {
  std::string out;
  for (const auto& n : u.notes) out += (out.empty() ? "" : "; ") + n;
  return out.empty() ? "(no notes)" : out;
}

bool noted(const discovery::PmuUnit& u, const std::string& needle) {
  for (const auto& n : u.notes)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

// Two IOMMUs, found in PCI order whatever the spec's order, each with its banks and counters from
// its counter configuration register, its base from the capability and its socket from NUMA.
TEST(AmdIommuDiscovery, CountersFromTheProvenRegionInPciOrder) {
  test::Discovered d(
      machine({{{"bdf", "0000:80:00.2"}, {"numa_node", 1}, {"base", "0xf0080000"}, {"banks", 1}, {"counters", 2}},
               {{"bdf", "0000:00:00.2"}, {"numa_node", 0}, {"base", "0xf0000000"}, {"cap_at", "0x64"}}}));
  ASSERT_EQ(d.names(), (std::vector<std::string>{"amd_iommu_0", "amd_iommu_1"}));
  const auto* u0 = d.unit("amd_iommu_0");
  ASSERT_NE(u0, nullptr);
  const auto& a0 = details(u0);
  EXPECT_EQ(a0.function.str(), "0000:00:00.2");
  EXPECT_EQ(a0.cap_offset, 0x64);
  EXPECT_EQ(a0.mmio_base, 0xf0000000u);
  EXPECT_TRUE(a0.region_proven);
  EXPECT_EQ(a0.banks, 2u);
  EXPECT_EQ(a0.counters, 4u);
  EXPECT_EQ(u0->num_counters, 8u);
  EXPECT_EQ(u0->counter_width, 48u);
  EXPECT_EQ(u0->socket, 0);
  EXPECT_EQ(u0->pmu_kind, "amd_iommu");
  const auto* u1 = d.unit("amd_iommu_1");
  ASSERT_NE(u1, nullptr);
  const auto& a1 = details(u1);
  EXPECT_EQ(a1.mmio_base, 0xf0080000u);
  EXPECT_EQ(a1.banks, 1u);
  EXPECT_EQ(a1.counters, 2u);
  EXPECT_EQ(u1->num_counters, 2u);
  EXPECT_EQ(u1->socket, 1);
  EXPECT_TRUE(u0->notes.empty()) << all_notes(*u0);
  const auto j = discovery::to_json(*u0);
  EXPECT_NE(j.dump().find("\"counter_base\":\"0xf0040000\""), std::string::npos) << j.dump();
}

// Without the kernel's claim nothing of the region is read: the unit is listed with no counters
// and a note naming the range; a claim of 0x4000 bytes (firmware's IVHD says no counters) is
// named as such.
TEST(AmdIommuDiscovery, UnprovenRegionIsNotRead) {
  test::Discovered d(machine({{{"bdf", "0000:00:00.2"}, {"base", "0xf0000000"}, {"iomem", false}},
                              {{"bdf", "0000:40:00.2"}, {"base", "0xf0080000"}, {"iomem_size", "0x4000"}}}));
  const auto* u0 = d.unit("amd_iommu_0");
  ASSERT_NE(u0, nullptr);
  EXPECT_EQ(u0->num_counters, 0u);
  EXPECT_FALSE(details(u0).ext_features.has_value());
  EXPECT_TRUE(noted(*u0, "MMIO region 0xf0000000+0x4000 not proven the IOMMU's, not read")) << all_notes(*u0);
  const auto* u1 = d.unit("amd_iommu_1");
  ASSERT_NE(u1, nullptr);
  EXPECT_EQ(u1->num_counters, 0u);
  EXPECT_FALSE(details(u1).cntr_conf.has_value());
  EXPECT_TRUE(noted(*u1, "the kernel claimed 0x4000 bytes only")) << all_notes(*u1);
}

// A range that is System RAM is never the IOMMU's, whatever /proc/iomem names inside it.
TEST(AmdIommuDiscovery, RegionOverSystemRamIsRefused) {
  test::Discovered d(machine({{{"bdf", "0000:00:00.2"}, {"base", "0x40000000"}}}));
  const auto* u = d.unit("amd_iommu_0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->num_counters, 0u);
  EXPECT_TRUE(noted(*u, "not proven")) << all_notes(*u);
}

// PCSup clear in the Extended Feature Register: read (the region Linux claims for every IOMMU),
// and no counter configuration after it.
TEST(AmdIommuDiscovery, PcSupClearMeansNoCounters) {
  test::Discovered d(machine({{{"bdf", "0000:00:00.2"}, {"base", "0xf0000000"}, {"pcsup", false}}}));
  const auto* u = d.unit("amd_iommu_0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(details(u).ext_features, 0u);
  EXPECT_FALSE(details(u).cntr_conf.has_value());
  EXPECT_EQ(u->num_counters, 0u);
  EXPECT_TRUE(noted(*u, "PCSup (bit 9) clear")) << all_notes(*u);
}

// The base address register without its enable bit: no MMIO region at all.
TEST(AmdIommuDiscovery, BaseNotEnabled) {
  test::Discovered d(machine({{{"bdf", "0000:00:00.2"}, {"base", "0xf0000000"}, {"enabled", false}}}));
  const auto* u = d.unit("amd_iommu_0");
  ASSERT_NE(u, nullptr);
  EXPECT_FALSE(details(u).base_enabled);
  EXPECT_EQ(u->num_counters, 0u);
  EXPECT_TRUE(noted(*u, "not enabled (bit 0 clear)")) << all_notes(*u);
}

// Physical memory not reachable (no /dev/mem): the region is proven, but cannot be read.
TEST(AmdIommuDiscovery, NoDevMem) {
  MachineOptions opts;
  opts.overrides["devmem.path"] = "/nonexistent/mem";
  test::Discovered d(machine({{{"bdf", "0000:00:00.2"}, {"base", "0xf0000000"}}}), opts);
  const auto* u = d.unit("amd_iommu_0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->num_counters, 0u);
  EXPECT_TRUE(noted(*u, "the MMIO registers cannot be read")) << all_notes(*u);
}

// Addresses hidden from a non-root reader: nothing is read, and the note says to run as root.
TEST(AmdIommuDiscovery, HiddenIomemAddresses) {
  auto spec = machine({{{"bdf", "0000:00:00.2"}, {"base", "0xf0000000"}}});
  spec["iomem"]["hide_addresses"] = true;
  test::Discovered d(spec);
  const auto* u = d.unit("amd_iommu_0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->num_counters, 0u);
  EXPECT_TRUE(noted(*u, "run as root")) << all_notes(*u);
}
