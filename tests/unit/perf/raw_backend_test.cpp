// pmu-raw's perf backend and --backend auto, end to end: real counts from this machine's msr and
// software PMUs, the reason printed for each PMU's backend, and what only the direct backend can do.
#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "live_perf.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/coresight/coresight_unit.h"
#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/file.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

}  // namespace

TEST(RawPerfBackend, CountsThisMachinesPmusWithTheSameSpecs) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  auto r = test::run_tool("pmu-raw", {"--backend", "perf", "-e", "msr/tsc/", "-e", "cpu-clock", "-e",
                                      "software/config=3,name=cs/", "--duration", "0.2", "-j"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  for (const auto& j : lines) EXPECT_EQ(j["backend"], "perf") << j;
  EXPECT_EQ(lines[0]["event"], "msr/tsc/");
  EXPECT_EQ(lines[1]["event"], "cpu-clock");
  EXPECT_EQ(lines[1]["unit"], "msec");
  EXPECT_EQ(lines[2]["event"], "cs");
  // 0.2 s on every online CPU: the TSC ticks and cpu-clock spans about the window per CPU.
  EXPECT_GT(std::stod(lines[0]["counter-value"].get<std::string>()), 1e6);
  double cpu_clock_ms = std::stod(lines[1]["counter-value"].get<std::string>());
  EXPECT_GT(cpu_clock_ms, 150.0);
  EXPECT_NE(r.err.find("pmu-raw: msr: perf (--backend perf)"), std::string::npos) << r.err;
}

TEST(RawPerfBackend, AutoSaysWhyAKernelOnlyPmuGoesThroughPerf) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  auto r = test::run_tool("pmu-raw", {"-e", "msr/tsc/", "--duration", "0.1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("(msr: perf (a kernel PMU; pmukit discovered no unit of that name))"), std::string::npos)
      << r.out;
  auto i = test::run_tool("pmu-raw", {"-e", "msr/tsc/", "-I", "50", "--interval-count", "2", "-x,"});
  ASSERT_EQ(i.status, 0) << i.err;
  EXPECT_NE(i.err.find("pmu-raw: msr: perf (a kernel PMU"), std::string::npos) << i.err;
  EXPECT_EQ(i.out.find("pmu-raw:"), std::string::npos) << "notes stay out of the CSV: " << i.out;
}

TEST(RawPerfBackend, IntervalsUnderTenMillisecondsAreDirectOnly) {
  auto r = test::run_tool("pmu-raw", {"--backend", "perf", "-e", "msr/tsc/", "-I", "5", "--interval-count", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("pmu-raw: error: -I 5: intervals under 10 ms are a direct-backend ability"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("msr: perf (--backend perf)"), std::string::npos) << r.err;
}

// A Grace snapshot whose SCF unit is busy (another agent enabled its counters), and whose kernel
// PMU of the same name is, for this test, this machine's msr PMU: auto must leave the busy unit
// alone and count through perf, saying why -- and the count is the kernel's, for real.
TEST(RawPerfBackend, AutoFallsBackToPerfForABusyUnit) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  test::TempDir dir;
  auto root = dir.path() / "grace";
  families::build_bundled("grace-2s", root);
  Machine machine(MachineOptions{root});
  auto found = families::discover(machine);
  auto units = found.inventory.find("nvidia_scf_pmu_0");
  ASSERT_EQ(units.size(), 1u);
  const auto* cs = units[0]->as<discovery::CoreSightUnit>();
  ASSERT_NE(cs, nullptr);
  {
    PhysicalMemory mem(machine);
    auto w = mem.map(cs->base0, 0x1000, true);
    w->write32(regs::coresight::PMCNTENSET, 0x1);
  }
  write_file(root / "sys/bus/event_source/devices/nvidia_scf_pmu_0/type",
             read_file(Machine::live().param("events.path") / "msr" / "type"));
  // --live-perf: the snapshot's kernel PMU stands for this machine's msr PMU, on purpose.
  auto r = test::run_tool("pmu-raw", {"--snapshot", root.string(), "--live-perf", "-e", "nvidia_scf_pmu_0/config=0/",
                                      "--duration", "0.1", "-j"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("nvidia_scf_pmu_0: perf, because nvidia_scf_pmu_0: in use: PMCNTENSET0 is 0x1"),
            std::string::npos)
      << r.err;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0]["backend"], "perf");
  // config 0 of msr is the TSC: 0.1 s of it on CPU 0 (the snapshot PMU's cpumask)
  EXPECT_GT(std::stod(lines[0]["counter-value"].get<std::string>()), 1e7);
  // Without the kernel PMU, the same busy unit is an error that names both reasons and --force.
  std::filesystem::remove(root / "sys/bus/event_source/devices/nvidia_scf_pmu_0");
  auto gone =
      test::run_tool("pmu-raw", {"--snapshot", root.string(), "-e", "nvidia_scf_pmu_0/config=0/", "--duration", "0.1"});
  EXPECT_EQ(gone.status, 1);
  EXPECT_NE(gone.err.find("cannot be counted directly (nvidia_scf_pmu_0: in use: PMCNTENSET0 is 0x1"),
            std::string::npos)
      << gone.err;
  EXPECT_NE(gone.err.find("--force"), std::string::npos) << gone.err;
}

// More events than a Tegra410 UCF unit has counters: auto no longer sends the PMU to the kernel's
// perf (here it would be this machine's msr PMU, as above) -- the direct backend multiplexes them,
// each scaled and shown with its pcnt-running, as perf would.
TEST(RawPerfBackend, AutoMultiplexesDirectlyWhatOutnumbersTheCounters) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  test::TempDir dir;
  auto root = dir.path() / "t410";
  families::build_bundled("t410-2s", root);
  write_file(root / "sys/bus/event_source/devices/nvidia_ucf_pmu_0/type",
             read_file(Machine::live().param("events.path") / "msr" / "type"));
  test::SimProcess sim(root);  // a static snapshot is never programmed: auto would take perf
  std::vector<std::string> args{"--snapshot", root.string(), "--live-perf"};
  for (int i = 0; i < 12; ++i) args.insert(args.end(), {"-e", fmt::format("nvidia_ucf_pmu_0/config=0,name=e{}/", i)});
  args.insert(args.end(), {"--duration", "0.1", "-j"});
  auto r = test::run_tool("pmu-raw", args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("nvidia_ucf_pmu_0: direct"), std::string::npos) << r.err;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 12u) << r.out;
  for (const auto& j : lines) {
    EXPECT_EQ(j["backend"], "direct") << j;
    EXPECT_LT(j["pcnt-running"].get<double>(), 100.0) << j;
  }
}
