// ACPI devices as sysfs shows them (hid, uid, path, status, physical_node, ancestors), processor
// UIDs and containers, and /proc/iomem as root and non-root see it.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/families/registry.h"
#include <nlohmann/json.hpp>

#include "pmukit/acpi/devices.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/test_support.h"

using namespace pmukit;
using json = nlohmann::json;

namespace {

json arm_machine(json extra) {
  json m{{"name", "t"},
         {"cpuinfo", {{"vendor", ""}, {"implementer", "0x41"}}},
         {"topology", {{"sockets", 2}, {"cpus_per_die", 2}}}};
  m.update(extra);
  return m;
}

}  // namespace

TEST(AcpiDevices, ProcessorsMapUidsToCpusAndContainers) {
  test::TempDir dir;
  families::build_from_spec(arm_machine({{"acpi_processors", {{"containers", true}, {"uid_base", 0x100}}}}), dir / "m");
  Machine m(MachineOptions{dir / "m"});
  auto devs = acpi::list_devices(m);
  auto procs = acpi::processors(devs);
  ASSERT_EQ(procs.uid_to_cpu.size(), 4u);
  EXPECT_EQ(procs.uid_to_cpu.at(0x100), 0);
  EXPECT_EQ(procs.uid_to_cpu.at(0x103), 3);
  ASSERT_EQ(procs.container_cpus.size(), 2u);
  EXPECT_EQ(procs.container_cpus.at(1), (std::vector<int>{2, 3}));
  const acpi::AcpiDevice* cpu2 = nullptr;
  for (const auto& d : devs)
    if (d.hid == "ACPI0007" && d.uid == "258") cpu2 = &d;
  ASSERT_NE(cpu2, nullptr);
  EXPECT_EQ(cpu2->physical_node, "cpu2");
  ASSERT_GE(cpu2->ancestors.size(), 1u);
  EXPECT_EQ(cpu2->ancestors[0].hid, "ACPI0010");
  EXPECT_EQ(cpu2->ancestors[0].uid, "1");
  EXPECT_EQ(cpu2->path, "\\_SB_.SCK1.C002");
  EXPECT_TRUE(cpu2->present());
}

TEST(AcpiDevices, PlatformDeviceResourcesComeFromIomemOnceEach) {
  test::TempDir dir;
  json dev{{"hid", "NVDA2021"},
           {"uid", 1},
           {"path", "\\_SB_.CML1"},
           {"kernel_pmu", "nvidia_cmem_latency_pmu_1"},
           {"resources", json::array({json{{"base", "0x40000000"}, {"size", "0x1000"}},
                                      json{{"base", "0x40010000"}, {"size", "0x1000"}}})}};
  families::build_from_spec(arm_machine({{"acpi_devices", json::array({dev})}}), dir / "m");
  Machine m(MachineOptions{dir / "m"});
  auto devs = acpi::list_devices(m);
  ASSERT_EQ(devs.size(), 1u);
  EXPECT_EQ(devs[0].name, "NVDA2021:00");
  EXPECT_EQ(devs[0].uid_number(), 1u);
  EXPECT_EQ(devs[0].physical_node, "NVDA2021:00");
  auto io = acpi::read_iomem(m);
  ASSERT_TRUE(io.readable);
  EXPECT_FALSE(io.addresses_hidden);
  EXPECT_EQ(io.ranges.size(), 4u);  // each resource plus the driver's nested claim
  auto named = io.named("NVDA2021:00");
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].start, 0x40000000u);
  EXPECT_EQ(named[1].end, 0x40010fffu);
}

TEST(AcpiDevices, IomemForNonRootHidesAddresses) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  // What a non-root reader gets: the same lines with every address printed as 0.
  b.write_text("/proc/iomem", "00000000-00000000 : System RAM\n00000000-00000000 : NVDA2020:00\n  "
                              "00000000-00000000 : NVDA2020:00\n"
                              "00000000-00000000 : NVDA2020:00\n  00000000-00000000 : NVDA2020:00\n");
  Machine m(MachineOptions{dir.path()});
  auto io = acpi::read_iomem(m);
  EXPECT_TRUE(io.addresses_hidden);
  EXPECT_EQ(io.named("NVDA2020:00").size(), 2u);
  EXPECT_EQ(io.ranges[2].depth, 1u);
}

TEST(AcpiDevices, MissingFilesGiveEmptyResults) {
  test::TempDir dir;
  Machine m(MachineOptions{dir.path()});
  EXPECT_TRUE(acpi::list_devices(m).empty());
  EXPECT_FALSE(acpi::read_iomem(m).readable);
  snapshot::SnapshotBuilder b(dir.path());
  b.write_text("/proc/iomem", "garbage\n12-zz : x\n");
  EXPECT_TRUE(acpi::read_iomem(m).ranges.empty());
}
