// SIGKILL during pmu-raw, recovered byte for byte (pmu/journal.h): pmu-raw under pmu-sim in
// virtual time is killed right after its N-th register write (the test-only hook
// PMUKIT_TEST_KILL_AFTER_WRITES; N = 0: after the journal, before any write), then `pmu-raw
// --recover` or a plain next run puts every register back: the register image equals the one
// taken before the killed run, byte for byte. Every family's driver is covered: Intel boxes
// (MSR, MMIO, PCI config), CoreSight pages, DesignWare RAS DES, Tegra410 C2C and CMEM blocks.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// pmu-raw ARGS on the rig's machine, killed after `n` register writes.
test::RunResult run_killed(const test::BundledRig& rig, const std::vector<std::string>& args, std::size_t n) {
  std::vector<std::string> a{"PMUKIT_TEST_KILL_AFTER_WRITES=" + std::to_string(n),
                             std::string(PMUKIT_TOOLS_DIR) + "/pmu-raw"};
  for (auto& w : rig.args(args)) a.push_back(std::move(w));
  return test::run_program("env", a);
}

enum class Next { RecoverCommand, PlainRun };

// Kills a run of `run` at each point, recovers, and compares the image; the figures go to stdout.
// PMUKIT_KILL_SWEEP=1 (by hand, not in CI: minutes) kills at every point from 0 to the run's end.
void kill_and_recover(const std::string& machine, const std::vector<std::string>& run,
                      const std::vector<std::size_t>& points, Next next) {
  const bool sweep = std::getenv("PMUKIT_KILL_SWEEP") != nullptr;
  test::BundledRig rig(machine);
  test::SimProcess sim(rig.root);
  const auto journal = rig.root / "run/pmukit.journal";
  std::size_t tried = 0, left_programmed = 0, recovered = 0;
  for (std::size_t i = 0; sweep || i < points.size(); ++i, ++tried) {
    const std::size_t n = sweep ? i : points[i];
    SCOPED_TRACE(machine + ": killed after " + std::to_string(n) + " register writes");
    auto killed = run_killed(rig, run, n);
    if (sweep && killed.status == 0) break;  // the run made fewer writes: it ended normally
    ASSERT_EQ(killed.status, 128 + SIGKILL) << "the run ended before its write " << n << ": " << killed.err;
    ASSERT_TRUE(std::filesystem::exists(journal));
    left_programmed += !rig.image_change().empty();
    auto again = next == Next::RecoverCommand ? test::run_tool("pmu-raw", rig.args({"--recover"}))
                                              : test::run_tool("pmu-raw", rig.args(run));
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.err.find(" registers from a run killed before it could restore them (pid "), std::string::npos)
        << again.err;
    EXPECT_FALSE(std::filesystem::exists(journal));
    EXPECT_EQ(rig.image_change(), "");
    recovered += rig.image_change().empty();
  }
  // The kills must have mattered: without recovery, registers would have stayed programmed.
  EXPECT_GT(left_programmed, 0u);
  std::cout << "kill-recovery " << machine << " " << (next == Next::RecoverCommand ? "--recover" : "next-run") << ": "
            << tried << " kill points, " << left_programmed << " left registers programmed, " << recovered
            << " restored byte for byte\n";
}

const std::vector<std::size_t> kEveryPointTo7 = {0, 1, 2, 3, 4, 5, 6, 7};

// Kill points drawn from fixed seeds over the whole run (programming, sampling, restore).
std::vector<std::size_t> seeded_points(std::size_t writes_in_run) {
  std::vector<std::size_t> points;
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    std::mt19937 rng(seed);
    points.push_back(std::uniform_int_distribution<std::size_t>(1, writes_in_run)(rng));
  }
  return points;
}

const std::vector<std::string> kSpr = {"-e",         "uncore_imc/cas_count_read/",
                                       "-e",         "uncore_cha_3/event=0x1/",
                                       "-e",         "uncore_iio_2/event=0x83/",
                                       "--duration", "1",
                                       "-x",         ","};
// The register writes of that run (16 IMC, 2 CHA and 2 IIO boxes: programming, sampling, restore), found with
// the hook itself: 334 kills the run, 335 lets it end.
constexpr std::size_t kSprWrites = 334;
const std::vector<std::string> kGrace = {
    "-a", "-e", "nvidia_scf_pmu_0/cmem_rd_data/", "-e", "nvidia_scf_pmu_1/event=cycles/", "--duration", "1", "-x", ","};
const std::vector<std::string> kYitian = {"-e",         "dwc_rootport_10/rx_pcie_tlp_data_payload/",
                                          "-e",         "dwc_rootport_3018/eventid=0x600,type=1,lane=0/",
                                          "--duration", "1"};
// The CMN guide's D2D event, an event over every HN-F node and the cycle counter: DTM configs,
// DTC counters and event selects of one mesh.
const std::vector<std::string> kYitianCmn = {"-a",
                                             "-e",
                                             "arm_cmn_0/type=0x105,eventid=0x22,bynodeid=1,nodeid=413/",
                                             "-e",
                                             "arm_cmn_0/hnf_cache_miss/",
                                             "-e",
                                             "arm_cmn_0/dtc_cycles/",
                                             "--duration",
                                             "1"};
const std::vector<std::string> kT410 = {"-a",
                                        "-e",
                                        "nvidia_cmem_latency_pmu_0/rd_req/",
                                        "-e",
                                        "nvidia_nvlink_c2c_pmu_0/in_rd_req/",
                                        "-e",
                                        "nvidia_pcie_pmu_0_rc_4/event=0x4/",
                                        "--duration",
                                        "1"};

}  // namespace

TEST(KillRecovery, Spr2sSeededPointsThenRecover) {
  kill_and_recover("spr-2s", kSpr, seeded_points(kSprWrites), Next::RecoverCommand);
}
TEST(KillRecovery, Spr2sEveryEarlyPointThenRecover) {
  kill_and_recover("spr-2s", kSpr, kEveryPointTo7, Next::RecoverCommand);
}
TEST(KillRecovery, Spr2sThenPlainNextRun) {
  kill_and_recover("spr-2s", kSpr, {3, kSprWrites / 2}, Next::PlainRun);
}
TEST(KillRecovery, Grace2sEveryPointThenRecover) {
  kill_and_recover("grace-2s", kGrace, kEveryPointTo7, Next::RecoverCommand);
}
TEST(KillRecovery, Grace2sThenPlainNextRun) {
  kill_and_recover("grace-2s", kGrace, {2, 5}, Next::PlainRun);
}
TEST(KillRecovery, YitianEveryPointThenRecover) {
  kill_and_recover("yitian", kYitian, kEveryPointTo7, Next::RecoverCommand);
}
TEST(KillRecovery, YitianThenPlainNextRun) {
  kill_and_recover("yitian", kYitian, {1, 4}, Next::PlainRun);
}
TEST(KillRecovery, YitianCmnSeededPointsThenRecover) {
  kill_and_recover("yitian", kYitianCmn, {0, 1, 2, 5, 17, 40, 61}, Next::RecoverCommand);
}
TEST(KillRecovery, T410EveryPointThenRecover) {
  kill_and_recover("t410-2s", kT410, kEveryPointTo7, Next::RecoverCommand);
}
TEST(KillRecovery, T410ThenPlainNextRun) {
  kill_and_recover("t410-2s", kT410, {2, 6}, Next::PlainRun);
}

// Nothing to recover is said, and is success.
TEST(KillRecovery, RecoverWithoutAJournal) {
  test::BundledRig rig("yitian");
  auto r = test::run_tool("pmu-raw", rig.args({"--recover"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("nothing to recover"), std::string::npos) << r.err;
  EXPECT_EQ(rig.image_change(), "");
}
