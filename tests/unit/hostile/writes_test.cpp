// Hostile snapshots, what pmukit writes: the lock, the simulator's clock page and machine specs
// never write through a link or outside the root; a root of "/" is the live machine and is said
// to be; and the perf backend never counts this machine's PMUs for a snapshot unless asked to.
#include <nlohmann/json.hpp>

#include "hostile_support.h"

using namespace pmukit;
using pmukit::test::HostileSnapshot;

namespace {

const std::vector<std::string> kCount = {"-e", "uncore_imc_0/event=0x1/", "--duration", "0.01", "--backend", "direct"};

TEST(HostileWrites, TheLockFileAndItsDirectory) {
  {
    HostileSnapshot h("spr-2s");
    h.link("run/pmukit.lock", h.canary / "lock");
    h.expect_error(h.run("pmu-raw", kCount), "pmu-raw", "run/pmukit.lock: is a symbolic link");
  }
  {
    HostileSnapshot h("spr-2s");
    h.link("run", h.canary);
    h.expect_error(h.run("pmu-raw", kCount), "pmu-raw", "/run: is a symbolic link");
  }
  {
    HostileSnapshot h("spr-2s");
    h.fifo("run/pmukit.lock");
    h.expect_error(h.run("pmu-raw", kCount), "pmu-raw", "the lock is a FIFO");
  }
  // A unit's lock, and the directory of the unit locks and journals.
  {
    HostileSnapshot h("spr-2s");
    h.link("run/pmukit/uncore_imc_0.lock", h.canary / "lock");
    h.expect_error(h.run("pmu-raw", kCount), "pmu-raw", "run/pmukit/uncore_imc_0.lock: is a symbolic link");
  }
  {
    HostileSnapshot h("spr-2s");
    h.link("run/pmukit", h.canary);
    h.expect_error(h.run("pmu-raw", kCount), "pmu-raw", "run/pmukit: is a symbolic link");
  }
}

TEST(HostileWrites, TheSimulatorsClockPage) {
  HostileSnapshot h("spr-2s");
  h.link("run/pmukit-sim", h.canary);
  // pmu-sim takes the directory as an argument, not --snapshot: run it as a user would.
  auto r = test::run_program("timeout",
                             {"-s", "KILL", "30", std::string(PMUKIT_TOOLS_DIR) + "/pmu-sim", "run", h.root.string()});
  h.expect_error(r, "pmu-sim", "run/pmukit-sim: is a symbolic link");
  auto advance = test::run_program(
      "timeout", {"-s", "KILL", "30", std::string(PMUKIT_TOOLS_DIR) + "/pmu-sim", "advance", h.root.string(), "10"});
  h.expect_error(advance, "pmu-sim", "run/pmukit-sim: is a symbolic link");
}

TEST(HostileWrites, SpecsWriteOnlyInsideTheirDirectory) {
  test::TempDir dir;
  auto spec = nlohmann::json{
      {"name", "t"},
      {"topology", {{"sockets", 1}}},
      {"acpi_devices", nlohmann::json::array(
                           {{{"hid", "NVDA2023"}, {"kernel_pmu", "p"}, {"pmu_files", {{"../../../../x", "pwned"}}}}})}};
  write_file(dir / "spec.json", spec.dump());
  auto r = test::run_tool("pmu-sim", {"create", "--spec", (dir / "spec.json").string(), (dir / "a/b/m").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("spec.json: acpi_devices[0].pmu_files: '../../../../x' is not a file name"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x"));
  EXPECT_FALSE(std::filesystem::exists(dir / "a/x"));
  auto huge = nlohmann::json{{"name", "t"}, {"topology", {{"sockets", 1000000}}}};
  write_file(dir / "huge.json", huge.dump());
  r = test::run_tool("pmu-sim", {"create", "--spec", (dir / "huge.json").string(), (dir / "h").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("huge.json: topology.sockets: 0xf4240 is larger than 0x40"), std::string::npos) << r.err;
}

TEST(HostileRoot, SlashIsTheLiveMachineAndIsSaidToBe) {
  auto live = test::run_tool("pmu-discover", {});
  auto slash = test::run_tool("pmu-discover", {"--snapshot", "/"});
  EXPECT_EQ(slash.status, live.status);
  EXPECT_EQ(slash.out, live.out);
  EXPECT_NE(slash.err.find("pmu-discover: note: --snapshot / is this machine's root: this is the live machine"),
            std::string::npos)
      << slash.err;
  EXPECT_EQ(live.err.find("note:"), std::string::npos) << live.err;
}

TEST(HostilePerf, ASnapshotIsNeverCountedWithThisMachinesPmus) {
  // A snapshot PMU of type 1 (PERF_TYPE_SOFTWARE) used to count this machine's cpu-clock.
  HostileSnapshot h("grace-2s");
  write_file(h.root_path("sys/bus/event_source/devices/nvidia_scf_pmu_0/type"), "1\n");
  for (const char* backend : {"perf", "auto"}) {
    auto r =
        h.run("pmu-raw", {"--backend", backend, "-e", "nvidia_scf_pmu_0/config=0/,cpu-clock", "--duration", "0.01"});
    h.expect_error(r, "pmu-raw", "the perf backend counts this machine's kernel PMUs, not a snapshot's");
  }
}

}  // namespace
