// pmu-raw end to end on a small machine written from a spec with two AMD IOMMUs, against a
// pmu-sim process: named events of Linux iommu.c (amd_iommu_v2_event_descs) and a raw one with a
// requester filter count exactly at the rates set, in virtual time, and every PMU register byte
// is what it was afterwards; the perf fallback finds the kernel's amd_iommu_<n> PMU by the
// unit's name.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/families/registry.h"
#include "pmukit/util/file.h"
#include "support/register_image.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

struct IommuRig {
  test::TempDir dir;
  std::filesystem::path root;
  std::unique_ptr<Machine> machine;
  discovery::DiscoveryResult found;
  test::RegisterImage before;
  IommuRig() : root(dir.path() / "m") {
    // Counter 0 of amd_iommu_0 has a DOMID_MATCH filter from before the run; its source is 0, so
    // its COUNTER is power-gated and holds 0 (it reads 0 and drops writes).
    nlohmann::json spec = {
        {"name", "amd-iommu-e2e"},
        {"cpuinfo", {{"vendor", "AuthenticAMD"}, {"family", 25}, {"model", 17}}},
        {"topology", {{"sockets", 2}, {"dies_per_socket", 1}, {"cpus_per_die", 2}}},
        {"amd_iommus",
         {{{"bdf", "0000:00:00.2"},
           {"numa_node", 0},
           {"base", "0xf0000000"},
           {"writes", {{{"at", "0x40018"}, {"u32", "0x80000007"}}}}},
          {{"bdf", "0000:80:00.2"}, {"numa_node", 1}, {"base", "0xf0080000"}, {"banks", 1}, {"counters", 2}}}}};
    families::build_from_spec(spec, root);
    machine = std::make_unique<Machine>(MachineOptions{root});
    found = families::discover(*machine);
    before = test::register_image(*machine, found.inventory);
  }
  std::string image_change() { return test::image_difference(before, test::register_image(*machine, found.inventory)); }
  std::vector<std::string> args(std::vector<std::string> a) const {
    a.insert(a.begin(), {"--snapshot", root.string()});
    return a;
  }
};

}  // namespace

// One virtual second at the rates set: each event's count is its rate, to the unit, on both
// IOMMUs; the second IOMMU's two counters take two events at once; every register is put back.
// The last read comes after the units are stopped: were the sources cleared by then, the
// power-gated counters would read 0, and the counts come out 0 (2^48 - N after an earlier read).
TEST(RawAmdIommuEndToEnd, NamedAndFilteredEventsCountExactlyAndRestore) {
  IommuRig m;
  test::SimProcess sim(
      m.root, {"--rate", "amd_iommu:0x5=123457", "--rate", "amd_iommu:0x11=2000001", "--rate", "amd_iommu:0x13=77"});
  auto r = test::run_tool("pmu-raw",
                          m.args({"-a", "-x", ",", "-e", "amd_iommu_0/mem_trans_total/", "-e",
                                  "amd_iommu_0/csource=0x11,devid=0x10,devid_mask=0xffff/", "-e",
                                  "amd_iommu_1/tlb_inv/", "-e", "amd_iommu_1/mem_trans_total/", "--",
                                  std::string(PMUKIT_TOOLS_DIR) + "/pmu-sim", "advance", m.root.string(), "1000"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("123457,,amd_iommu_0/mem_trans_total/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2000001,,amd_iommu_0/csource=0x11,devid=0x10,devid_mask=0xffff/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("77,,amd_iommu_1/tlb_inv/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("123457,,amd_iommu_1/mem_trans_total/"), std::string::npos) << r.out;
  EXPECT_EQ(m.image_change(), "");
}

// Three events on an IOMMU of two counters are counted in turn (the kernel's -ENOSPC: perf
// multiplexes), each read at the end of its turn and scaled to the whole run: 1000/s over two
// seconds, on the counters half of them; the registers are put back.
TEST(RawAmdIommuEndToEnd, MoreEventsThanCountersAreMultiplexed) {
  IommuRig m;
  test::SimProcess sim(m.root, {"--rate", "amd_iommu=1000"});
  auto r = test::run_tool("pmu-raw",
                          m.args({"-a", "-x", ",", "-e", "amd_iommu_1/tlb_inv/", "-e", "amd_iommu_1/smi_recv/", "-e",
                                  "amd_iommu_1/cmd_processed/", "--duration", "2", "--mux-interval", "100"}));
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* e : {"tlb_inv", "smi_recv", "cmd_processed"})
    EXPECT_NE(r.out.find(fmt::format("2000,,amd_iommu_1/{}/,1000000000,50.00", e)), std::string::npos) << r.out;
  EXPECT_EQ(m.image_change(), "");
}

// The kernel's amd_iommu PMU of the unit's name (iommu.c init_one_iommu: "amd_iommu_%u") is what
// --backend perf counts with: on a snapshot, the perf backend says it counts only the live
// machine's PMUs -- the proof that the unit was mapped to it.
TEST(RawAmdIommuEndToEnd, PerfBackendFindsTheKernelPmuByName) {
  IommuRig m;
  const auto pmu_dir = m.root / "sys/devices/amd_iommu_0";
  std::filesystem::create_directories(pmu_dir / "format");
  write_file(pmu_dir / "type", "42\n");
  write_file(pmu_dir / "cpumask", "0\n");
  write_file(pmu_dir / "format/csource", "config:0-7\n");
  std::filesystem::create_directories(pmu_dir / "events");
  write_file(pmu_dir / "events/mem_trans_total", "csource=0x05\n");
  std::filesystem::create_directories(m.root / "sys/bus/event_source/devices");
  std::filesystem::create_symlink("../../../devices/amd_iommu_0", m.root / "sys/bus/event_source/devices/amd_iommu_0");
  auto r = test::run_tool("pmu-raw",
                          m.args({"-a", "-e", "amd_iommu_0/mem_trans_total/", "--duration", "1", "--backend", "perf"}));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("the perf backend counts this machine's kernel PMUs, not a snapshot's"), std::string::npos)
      << r.err;
}

// SIGKILL after each of the run's first register writes (tests/killable), then pmu-raw --recover:
// a fresh driver finds the counters whose registers differ from the journal (adopt) and every
// register is what it was before the killed run, byte for byte.
TEST(RawAmdIommuEndToEnd, KilledRunIsRecoveredByteForByte) {
  IommuRig m;
  test::SimProcess sim(m.root, {});
  const std::vector<std::string> run = {
      "-a", "-e", "amd_iommu_0/mem_trans_total/", "-e", "amd_iommu_0/csource=0x11,domid=0x2/", "--duration", "1"};
  std::size_t left_programmed = 0;
  for (std::size_t n : {0u, 1u, 3u, 5u, 6u, 9u, 10u, 11u}) {
    SCOPED_TRACE("killed after " + std::to_string(n) + " register writes");
    std::vector<std::string> a{"PMUKIT_TEST_KILL_AFTER_WRITES=" + std::to_string(n), std::string(PMUKIT_KILLABLE_RAW)};
    for (auto& w : m.args(run)) a.push_back(std::move(w));
    auto killed = test::run_program("env", a);
    ASSERT_EQ(killed.status, 128 + SIGKILL) << killed.err;
    left_programmed += !m.image_change().empty();
    auto again = test::run_tool("pmu-raw", m.args({"--recover"}));
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(m.image_change(), "");
  }
  EXPECT_GT(left_programmed, 0u);  // without recovery, registers would have stayed programmed
}

// pmu-discover's text view and --json show the IOMMUs with their banks and counters.
TEST(RawAmdIommuEndToEnd, DiscoverShowsTheUnits) {
  IommuRig m;
  auto text = test::run_tool("pmu-discover", m.args({}));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("AMD IOMMU performance counters (PCI class 0806, capability 0Fh): 2 units"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("amd_iommu_1      0000:80:00.2 [1022:1481] cap @0x40  MMIO 0xf0080000  1 banks x 2 "
                          "counters (48-bit)"),
            std::string::npos)
      << text.out;
  auto js = test::run_tool("pmu-discover", m.args({"--json"}));
  ASSERT_EQ(js.status, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  bool seen = false;
  for (const auto& u : j.at("units"))
    if (u.at("name") == "amd_iommu_0") {
      seen = true;
      EXPECT_EQ(u.at("family"), "amd-iommu");
      EXPECT_EQ(u.at("counters"), 8);
      EXPECT_EQ(u.at("amd-iommu").at("mmio_base"), "0xf0000000");
      EXPECT_EQ(u.at("amd-iommu").at("counter_base"), "0xf0040000");
      EXPECT_EQ(u.at("amd-iommu").at("banks"), 2);
    }
  EXPECT_TRUE(seen) << js.out;
}
