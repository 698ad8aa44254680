// SIGKILL during pmu-raw, recovered byte for byte (pmu/journal.h): pmu-raw under pmu-sim in
// virtual time is killed right after its N-th register write (pmu-raw linked with a hook:
// tests/killable; N = 0: after the journal, before any write), then `pmu-raw
// --recover` or a plain next run puts every register back: the register image equals the one
// taken before the killed run, byte for byte. Every family's driver is covered: Intel boxes
// (MSR, MMIO, PCI config), CoreSight pages, DesignWare RAS DES, Tegra410 C2C and CMEM blocks.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>

#include <fmt/format.h>

#include "pmukit/families/designware/designware_layout.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/unit_layout.h"
#include "pmukit/sim/clock.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// pmu-raw ARGS on the rig's machine, killed after `n` register writes.
test::RunResult run_killed(const test::BundledRig& rig, const std::vector<std::string>& args, std::size_t n) {
  std::vector<std::string> a{"PMUKIT_TEST_KILL_AFTER_WRITES=" + std::to_string(n), std::string(PMUKIT_KILLABLE_RAW)};
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
  std::size_t tried = 0, left_programmed = 0, recovered = 0;
  for (std::size_t i = 0; sweep || i < points.size(); ++i, ++tried) {
    const std::size_t n = sweep ? i : points[i];
    SCOPED_TRACE(machine + ": killed after " + std::to_string(n) + " register writes");
    auto killed = run_killed(rig, run, n);
    if (sweep && killed.status == 0) break;  // the run made fewer writes: it ended normally
    ASSERT_EQ(killed.status, 128 + SIGKILL) << "the run ended before its write " << n << ": " << killed.err;
    ASSERT_EQ(test::journals(rig.root).size(), 1u);  // one tool: one journal
    left_programmed += !rig.image_change().empty();
    auto again = next == Next::RecoverCommand ? test::run_tool("pmu-raw", rig.args({"--recover"}))
                                              : test::run_tool("pmu-raw", rig.args(run));
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.err.find(" registers from a run killed before it could restore them (pmu-raw, pid "),
              std::string::npos)
        << again.err;
    EXPECT_TRUE(test::journals(rig.root).empty());
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

// A lane event of a DesignWare root port: its id (EVENT_CNT_CTL event select, bits [27:16]) and
// lane (bits [11:8]), as Linux dwc_pcie_pmu.c writes them (DWC_PCIE_CNT_EVENT_SEL,
// DWC_PCIE_CNT_LANE_SEL).
struct LaneEvent {
  std::uint32_t id, lane;
};

// How far the lane event's counter moves over one second of pmu-sim's virtual time: EVENT_CNT_CTL
// selects it with its per-event enable [4:2] and clear [1:0] at 0 (no command: it is neither
// turned on nor off nor cleared), EVENT_CNT_DATA is read before and after; then EVENT_CNT_CTL gets
// its value back.
std::uint64_t lane_event_moves(test::BundledRig& rig, const discovery::PmuUnit& unit, LaneEvent e) {
  const auto layout = pmu::make_layout(unit, platform::Database::builtin());
  const pmu::Reg ctl = layout.at(pmu::DwcRole::LaneControl), data = layout.at(pmu::DwcRole::LaneCounter);
  auto time = sim::machine_clock(*rig.machine);
  pmu::RegisterIo io(*rig.machine);
  const std::uint64_t was = io.read(ctl);
  io.write(ctl, std::uint64_t{e.id} << 16 | std::uint64_t{e.lane} << 8);
  time.settle->settle();
  const std::uint64_t before = io.read(data);
  time.clock->sleep_until(time.clock->now_ns() + 1'000'000'000);
  const std::uint64_t after = io.read(data);
  io.write(ctl, was);
  time.settle->settle();
  return (after - before) & 0xffffffffu;
}

const discovery::PmuUnit& unit_named(const test::BundledRig& rig, const std::string& name) {
  for (const auto& u : rig.found.inventory.units)
    if (u.name == name) return u;
  throw Error(name + ": no such unit");
}

}  // namespace

// Three lane events of one root port count at once (groups 6 and 7: Linux dwc_pcie_pmu.c since
// 71396cfac97d), each with its own per-event enable reached through EVENT_CNT_CTL, so the
// register's original value turns off only the one it selects. A run killed once they are on
// (and once more while it reads them) is recovered: every register is back byte for byte and none
// of the three counts any more. The run's writes: 3 configure (off and clear), 3 baseline selects,
// 3 start (clear and on), 3 selects for the one read, 3 stop (off).
TEST(KillRecovery, YitianParallelLaneEventsAreTurnedOff) {
  const std::vector<LaneEvent> lanes = {{0x700, 0}, {0x70c, 1}, {0x602, 3}};
  std::vector<std::string> run;
  for (const auto& e : lanes)
    run.insert(run.end(), {"-e", fmt::format("dwc_rootport_3018/eventid={:#x},type=1,lane={}/", e.id, e.lane)});
  run.insert(run.end(), {"--duration", "1"});
  for (std::size_t point : {std::size_t{9}, std::size_t{11}}) {
    SCOPED_TRACE("killed after " + std::to_string(point) + " register writes");
    test::BundledRig rig("yitian");
    test::SimProcess sim(rig.root, {"--rate", "dwc_pcie:0x700=1000000", "--rate", "dwc_pcie:0x70c=250000", "--rate",
                                    "dwc_pcie:0x602=3000"});
    const auto& rp = unit_named(rig, "dwc_rootport_3018");
    auto killed = run_killed(rig, run, point);
    ASSERT_EQ(killed.status, 128 + SIGKILL) << killed.err;
    for (const auto& e : lanes) EXPECT_GT(lane_event_moves(rig, rp, e), 0u) << e.id << " counts after the kill";
    auto again = test::run_tool("pmu-raw", rig.args({"--recover"}));
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_TRUE(test::journals(rig.root).empty());
    EXPECT_EQ(rig.image_change(), "");
    for (const auto& e : lanes)
      EXPECT_EQ(lane_event_moves(rig, rp, e), 0u) << fmt::format("{:#x} lane {}", e.id, e.lane);
    EXPECT_EQ(rig.image_change(), "");
  }
}

// Multiplexing: 0x700 on lane 0 and on lane 1 take turns (one per id), so lane 1's is programmed
// only when the unit is reprogrammed; the session journals it before it turns it on. A kill after
// the rotation, recovered by the next plain run, leaves neither counting.
// The write after which lane 1's event is on: 3 writes program and start lane 0's (configure,
// baseline select, start), the first rotation reads it (a select), stops it, and configures,
// selects and starts lane 1's -- found with the hook too.
constexpr std::size_t kRotatedOn = 8;
TEST(KillRecovery, YitianLaneEventProgrammedByRotationIsTurnedOff) {
  const std::vector<LaneEvent> lanes = {{0x700, 0}, {0x700, 1}};
  const std::vector<std::string> run = {"-e",
                                        "dwc_rootport_3018/eventid=0x700,type=1,lane=0/",
                                        "-e",
                                        "dwc_rootport_3018/eventid=0x700,type=1,lane=1/",
                                        "--duration",
                                        "2",
                                        "--mux-interval",
                                        "500"};
  test::BundledRig rig("yitian");
  test::SimProcess sim(rig.root, {"--rate", "dwc_pcie:0x700=1000000"});
  const auto& rp = unit_named(rig, "dwc_rootport_3018");
  auto killed = run_killed(rig, run, kRotatedOn);
  ASSERT_EQ(killed.status, 128 + SIGKILL) << killed.err;
  EXPECT_GT(lane_event_moves(rig, rp, lanes[1]), 0u) << "lane 1's event is not on at the kill";
  auto next =
      test::run_tool("pmu-raw", rig.args({"-e", "dwc_rootport_3018/eventid=0x700,type=1,lane=0/", "--duration", "1"}));
  ASSERT_EQ(next.status, 0) << next.err;
  EXPECT_NE(next.err.find(" registers from a run killed before it could restore them (pmu-raw, pid "),
            std::string::npos)
      << next.err;
  EXPECT_EQ(rig.image_change(), "");
  for (const auto& e : lanes) EXPECT_EQ(lane_event_moves(rig, rp, e), 0u) << "lane " << e.lane;
}

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
// AMD (MSRs of many CPUs): the run clears every L3 of socket 0 and both DFs, so early and late kills.
const std::vector<std::string> kGenoa = {
    "-e", "amd_l3/event=0x04,umask=0xff/", "-e",         "amd_df/event=0x1f,umask=0x7fe/",
    "-e", "amd_umc_5/umc_cas_cmd.rd/",     "--duration", "1"};
TEST(KillRecovery, Genoa2sPointsThenRecover) {
  kill_and_recover("genoa-2s", kGenoa, {0, 1, 7, 150, 400}, Next::RecoverCommand);
}
TEST(KillRecovery, Genoa2sThenPlainNextRun) {
  kill_and_recover("genoa-2s", kGenoa, {5, 370}, Next::PlainRun);
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

// pmu-raw as pid 1 of a PID namespace (as in a container), killed after 5 register writes (the
// test hook; pid 1 of a namespace ignores its own SIGKILL, so there the hook ends it with
// _exit(137), which runs no restore either): its journal names pid 1, which out here is init. The
// next `pmu-raw --recover` holds the lock the killed run held, so it knows that run is gone, and
// restores every register. Skipped where PID namespaces cannot be made (no unshare(1), or no
// privilege for CLONE_NEWPID).
TEST(KillRecovery, PidOneOfAPidNamespace) {
  if (test::run_program("unshare", {"--pid", "--fork", "--mount-proc", "true"}).status != 0)
    GTEST_SKIP() << "unshare --pid --fork --mount-proc: PID namespaces are not available here";
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  std::vector<std::string> a{"PMUKIT_TEST_KILL_AFTER_WRITES=5", "unshare", "--pid", "--fork", "--mount-proc",
                             std::string(PMUKIT_KILLABLE_RAW)};
  for (auto& w : rig.args({"-e", "uncore_imc/cas_count_read/", "--duration", "1"})) a.push_back(w);
  auto killed = test::run_program("env", a);
  ASSERT_EQ(killed.status, 128 + SIGKILL) << killed.err;
  ASSERT_EQ(test::journals(rig.root).size(), 1u);
  EXPECT_NE(read_file(test::journals(rig.root)[0]).find("\npid 1\n"), std::string::npos);
  ASSERT_NE(rig.image_change(), "");
  for (const auto& next : {std::vector<std::string>{"--recover"}}) {
    auto again = test::run_tool("pmu-raw", rig.args(next));
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.err.find(" registers from a run killed before it could restore them (pmu-raw, pid 1)"),
              std::string::npos)
        << again.err;
  }
  EXPECT_EQ(rig.image_change(), "");
  EXPECT_TRUE(test::journals(rig.root).empty());
}

// The hook is the test build's alone: the installed pmu-raw reads no test variable, so the same
// setting that kills the test build at its journal lets pmu-raw run to its end and restore.
TEST(KillRecovery, TheToolItselfHasNoKillHook) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  std::vector<std::string> a{"PMUKIT_TEST_KILL_AFTER_WRITES=0", std::string(PMUKIT_TOOLS_DIR) + "/pmu-raw"};
  for (auto& w : rig.args({"-e", "uncore_imc/cas_count_read/", "--duration", "0.1", "-x", ","})) a.push_back(w);
  auto run = test::run_program("env", a);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(rig.image_change(), "");
  EXPECT_TRUE(test::journals(rig.root).empty());
}
