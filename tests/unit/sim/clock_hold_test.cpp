// pmu-sim's virtual clock while pmu-raw counts: a process's hold stops another client's jump of the
// clock (so a workload that moves time in one step is cut at every read of a multiplexed or narrow
// counter), and a pmu-raw with nothing to wait for (a line counted until Ctrl-C) moves the clock
// along with real time. Every wait here is on a condition of the virtual clock, bounded; none
// measures real time.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <regex>
#include <thread>

#include "pmukit/access/machine.h"
#include "pmukit/sim/clock.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// Polls `done` until it holds (bounded: a broken protocol fails the test instead of hanging it).
template <class F>
bool eventually(F done) {
  for (int i = 0; i < 10'000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// perf stat's count of `event` and its "N.NNNNNNNNN seconds time elapsed", in ns.
std::uint64_t count_of(const std::string& out, const std::string& event) {
  std::smatch m;
  if (!std::regex_search(out, m,
                         std::regex("([0-9,]+) +" + std::regex_replace(event, std::regex(R"([/,=])"), R"(\$&)"))))
    return UINT64_MAX;
  std::string digits = m[1];
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  return std::stoull(digits);
}
std::uint64_t elapsed_ns(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(R"(([0-9]+)\.([0-9]{9}) seconds time elapsed)"))) return 0;
  return std::stoull(m[1]) * 1'000'000'000ull + std::stoull(m[2]);
}

}  // namespace

// The page's hold: another client's request for 10 ms stops at each time the holder names, and
// completes once the hold is let go (ClockServer::limit, SimClock::sleep_until).
TEST(ClockHold, AnotherClientsJumpStopsAtTheHold) {
  test::BundledRig m("yitian");
  test::SimProcess sim(m.root);
  auto time = sim::machine_clock(*m.machine);
  ASSERT_TRUE(time.virtual_time);
  ASSERT_EQ(time.clock->now_ns(), 0u);
  time.clock->hold_at(4'000'000);
  test::ToolProcess advance("pmu-sim", {"advance", m.root.string(), "10"});
  ASSERT_TRUE(eventually([&] { return time.clock->now_ns() >= 4'000'000; }));
  EXPECT_EQ(time.clock->now_ns(), 4'000'000u);  // not 10 ms: the jump stopped at the hold
  time.clock->hold_at(7'000'000);
  ASSERT_TRUE(eventually([&] { return time.clock->now_ns() >= 7'000'000; }));
  EXPECT_EQ(time.clock->now_ns(), 7'000'000u);
  time.clock->hold_at(UINT64_MAX);
  EXPECT_EQ(advance.wait(), 0) << advance.err();
  EXPECT_EQ(time.clock->now_ns(), 10'000'000u);
}

// A hold whose process is gone stops nothing.
TEST(ClockHold, AHoldOfADeadProcessIsIgnored) {
  test::BundledRig m("yitian");
  test::SimProcess sim(m.root);
  {
    test::ToolProcess holder("pmu-raw", m.args({"-a", "-e", "dwc_rootport_10/one_cycle/", "-I", "1"}));
    ASSERT_FALSE(holder.read_line().empty());  // counting: it holds the clock at its next interval
    holder.signal(SIGKILL);
    holder.wait();
  }
  test::ToolProcess advance("pmu-sim", {"advance", m.root.string(), "50"});
  EXPECT_EQ(advance.wait(), 0) << advance.err();
}

// A line with no workload, interval or duration counts until SIGINT; meanwhile the virtual clock
// follows real time in whole milliseconds, so it counts what hardware would have in that time:
// the rate times the elapsed time it prints, exactly.
TEST(CtrlC, ALineWithoutAWorkloadCountsUntilInterruptedInTimeThatFollowsRealTime) {
  test::BundledRig m("grace-2s");
  test::SimProcess sim(m.root);
  auto time = sim::machine_clock(*m.machine);
  test::ToolProcess raw("pmu-raw", m.args({"-a", "-e", "nvidia_scf_pmu_0/cycles/", "-e",
                                           "nvidia_pcie_pmu_0/rd_bytes_loc/", "-e", "duration_time"}));
  // Signalled once the simulator reports 30 modelled ms: it has been counting that long.
  ASSERT_TRUE(eventually([&] { return time.clock->now_ns() >= 30'000'000; }));
  raw.signal(SIGINT);
  EXPECT_EQ(raw.wait(), 128 + SIGINT) << raw.err();  // ended by the signal, as perf stat
  const std::string out = raw.rest();
  const std::uint64_t ns = elapsed_ns(out);
  EXPECT_GE(ns, 30'000'000u) << out;
  EXPECT_EQ(ns % 1'000'000, 0u) << out;                                           // whole milliseconds
  EXPECT_EQ(count_of(out, "nvidia_scf_pmu_0/cycles/"), ns) << out;                // 1 GHz
  EXPECT_EQ(count_of(out, "nvidia_pcie_pmu_0/rd_bytes_loc/"), ns / 1000) << out;  // 1,000,000/s
  EXPECT_EQ(count_of(out, "ns +duration_time"), ns) << out;
}

// A workload that moves the clock in one jump (pmu-sim advance 1000) while two events take turns on
// the root port's one time-based counter: the jump is cut at every 4 ms turn, so each is counted
// half the time and its scaled count is the rate (before, one counted it all and the other was
// <not counted>).
TEST(ClockHold, AJumpWhileEventsTakeTurnsGivesEachItsShare) {
  test::BundledRig m("yitian");
  test::SimProcess sim(m.root, {"--rate", "dwc_pcie:0x20=1000000", "--rate", "dwc_pcie:0x21=3000000"});
  auto r = test::run_tool(
      "pmu-raw",
      m.args({"-a", "-e", "pcie_bdf_200/Tx_PCIe_TLP_Data_Payload/", "-e", "pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/",
              "--", std::string(PMUKIT_TOOLS_DIR) + "/pmu-sim", "advance", m.root.string(), "1000"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(elapsed_ns(r.out), 1'000'000'000u) << r.out;
  // 125 turns each of 4 ms: 500 ms counted, x2 (perf stat's scaling).
  EXPECT_NEAR(static_cast<double>(count_of(r.out, "pcie_bdf_200/Tx_PCIe_TLP_Data_Payload/")), 1e6, 1) << r.out;
  EXPECT_NEAR(static_cast<double>(count_of(r.out, "pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/")), 3e6, 1) << r.out;
  EXPECT_NE(r.out.find("(50.00%)"), std::string::npos) << r.out;
}

// A client waiting for its answer sleeps on the page's answer bell (a futex), not on a timer: the
// server rings it once per answer.
TEST(ClockHold, EachAnswerRingsTheAnswerBell) {
  test::BundledRig m("yitian");
  sim::ClockServer server(*m.machine, sim::SimMode::Virtual);
  auto answered = [&] {
    sim::ClockPage page{};
    std::ifstream f(server.path(), std::ios::binary);
    f.read(reinterpret_cast<char*>(&page), sizeof page);
    return page.answered;
  };
  const std::uint32_t before = answered();
  server.complete(1, 1000);
  EXPECT_EQ(answered(), before + 1);
  server.complete(2, 2000);
  EXPECT_EQ(answered(), before + 2);
}
