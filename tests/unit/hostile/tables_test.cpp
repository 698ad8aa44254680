// Hostile snapshots, firmware and kernel surfaces: the APMT, /proc files, topology, ACPI devices
// and the kernel's perf PMU directories; and counts far beyond any machine.
#include <fmt/format.h>

#include <vector>

#include "hostile_support.h"

using namespace pmukit;
using pmukit::test::HostileSnapshot;

namespace {

constexpr const char* kApmt = "sys/firmware/acpi/tables/APMT";
constexpr const char* kScfType = "sys/bus/event_source/devices/nvidia_scf_pmu_0/type";

TEST(HostileTables, TheApmtAsFifoEndlessFileOrHostFile) {
  struct Case {
    std::function<void(HostileSnapshot&)> plant;
    std::string message;
  } cases[] = {
      {[](HostileSnapshot& h) { h.fifo(kApmt); }, std::string(kApmt) + ": is a FIFO, not a regular file"},
      {[](HostileSnapshot& h) { h.link(kApmt, "/dev/zero"); }, "a link leads out of the machine root"},
      {[](HostileSnapshot& h) { h.link(kApmt, h.canary / "APMT"); }, "a link leads out of the machine root"},
      {[](HostileSnapshot& h) { h.link("sys/firmware/acpi/tables", h.canary); },
       "a link leads out of the machine root"},
  };
  for (const auto& c : cases) {
    HostileSnapshot h("grace-2s");
    c.plant(h);
    auto r = h.run("pmu-discover", {"--apmt"});
    h.expect_error(r, "pmu-discover", c.message);
    EXPECT_EQ(r.out.find("CANARY"), std::string::npos) << "the host file was read";
  }
}

TEST(HostileTables, ProcTopologyAndAcpiFiles) {
  struct Case {
    const char* machine;
    const char* rel;
  } fifos[] = {
      {"grace-2s", "proc/cpuinfo"},
      {"grace-2s", "sys/devices/system/cpu/online"},
      {"grace-2s", "sys/devices/system/node/node0/cpulist"},
      {"grace-2s", "sys/devices/system/cpu/cpu0/topology/physical_package_id"},
      {"grace-2s", "PMUKIT_SYNTHETIC_MACHINE"},
      {"grace-2s", "sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0010:00/hid"},
      {"t410-2s", "proc/iomem"},
  };
  for (const auto& c : fifos) {
    HostileSnapshot h(c.machine);
    h.fifo(c.rel);
    h.expect_error(h.run("pmu-discover", {}), "pmu-discover", std::string(c.rel) + ": is a FIFO");
  }
  for (const char* rel : {"proc/cpuinfo", "PMUKIT_SYNTHETIC_MACHINE"}) {
    HostileSnapshot h("grace-2s");
    h.link(rel, h.canary / "cpuinfo");
    auto r = h.run("pmu-discover", {});
    h.expect_error(r, "pmu-discover", "a link leads out of the machine root");
    EXPECT_EQ(r.out.find("CANARY"), std::string::npos);
  }
}

TEST(HostileTables, KernelPmuFilesFailOnlyTheirEvents) {
  struct Case {
    std::function<void(HostileSnapshot&)> plant;
    std::string message;
  } cases[] = {
      {[](HostileSnapshot& h) { h.fifo(kScfType); }, std::string(kScfType) + ": is a FIFO"},
      {[](HostileSnapshot& h) { h.link(kScfType, "/dev/zero"); }, "a link leads out of the machine root"},
      {[](HostileSnapshot& h) { h.link(kScfType, h.canary / "type"); }, "a link leads out of the machine root"},
      {[](HostileSnapshot& h) { h.fifo("sys/bus/event_source/devices/nvidia_scf_pmu_0/cpumask"); },
       "cpumask: is a FIFO"},
  };
  for (const auto& c : cases) {
    HostileSnapshot h("grace-2s");
    c.plant(h);
    h.expect_error(h.run("pmu-raw", {"-e", "nvidia_scf_pmu_0/cycles/", "--duration", "0.01"}), "pmu-raw", c.message);
    // pmu-discover lists units whatever a kernel PMU directory holds, and does not hang on it.
    EXPECT_EQ(h.run("pmu-discover", {}).status, 0);
  }
}

// An APMT of `nodes` 56-byte nodes, `declared` in its header (ACPI 6.5 5.2.6, Arm DEN0117).
std::string apmt_bytes(std::size_t nodes, std::uint32_t declared) {
  std::string t(36 + nodes * 56, '\0');
  t.replace(0, 4, "APMT");
  for (int i = 0; i < 4; ++i) t[4 + i] = static_cast<char>(declared >> (8 * i));
  for (std::size_t n = 0; n < nodes; ++n) t[36 + n * 56] = 56;  // node length
  return t;
}

TEST(HostileCounts, TablesListsAndTopologyBeyondAnyMachine) {
  {
    HostileSnapshot h("grace-2s");
    h.remove(kApmt);
    write_file(h.root_path(kApmt), apmt_bytes(5000, 36 + 5000 * 56));
    h.expect_error(h.run("pmu-discover", {"--apmt"}), "pmu-discover", "more than 4096 nodes");
  }
  {
    HostileSnapshot h("grace-2s");
    h.remove(kApmt);
    write_file(h.root_path(kApmt), apmt_bytes(1, 0x7fffffff));
    h.expect_error(h.run("pmu-discover", {"--apmt"}), "pmu-discover",
                   "header length 0x7fffffff is larger than pmukit reads");
  }
  {
    HostileSnapshot h("spr-2s");
    write_file(h.root_path("sys/devices/system/cpu/online"), "0-1000000\n");
    h.expect_error(h.run("pmu-discover", {}), "pmu-discover", "is not a list of at most 8192 CPUs");
  }
  {
    HostileSnapshot h("spr-2s");
    for (int n = 0; n < 1100; ++n)
      write_file(h.root_path(fmt::format("sys/devices/system/node/node{}/cpulist", n)), "0\n");
    h.expect_error(h.run("pmu-discover", {}), "pmu-discover", "more than 1024 NUMA nodes");
  }
}

}  // namespace
