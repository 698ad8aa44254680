// Time-division multiplexing end to end: pmu-raw against pmu-sim on the bundled machines, with
// more events than a unit has counters. Under pmu-sim's virtual time every rotation happens at an
// exact modelled instant, so for constant rates each count is what perf stat's scaling predicts,
// written here from perf's own formula (tools/perf/util/counts.c perf_counts_values__scale:
// val = (u64)((double)val * ena / run)), and pcnt-running is 100 * run / ena.
#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

using Bundled = test::BundledRig;

// One counted line of perf stat -x, (value,unit,event,run,pcnt,metric,metric-unit; the event may
// hold commas itself, so the fields are taken from both ends).
struct CsvCount {
  std::string value, event;
  std::uint64_t run_ns = 0;
  double pcnt = 0;
};

std::map<std::string, CsvCount> counts_of(const std::string& out) {
  std::map<std::string, CsvCount> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1)
      f.push_back(line.substr(start, comma - start));
    f.push_back(line.substr(start));
    if (f.size() < 7 || f[0].empty()) continue;  // metrics have no count
    CsvCount c;
    c.value = f[0];
    for (std::size_t i = 2; i + 4 < f.size(); ++i) c.event += (i > 2 ? "," : "") + f[i];
    c.run_ns = std::stoull(f[f.size() - 4]);
    c.pcnt = std::stod(f[f.size() - 3]);
    rows[c.event] = c;
  }
  return rows;
}

// What perf stat prints for a constant rate counted `run_ns` of `enabled_ns`.
std::string perf_scaled(double per_s, std::uint64_t run_ns, std::uint64_t enabled_ns) {
  const auto raw = static_cast<std::uint64_t>(per_s * static_cast<double>(run_ns) / 1e9);
  return std::to_string(static_cast<std::uint64_t>(static_cast<double>(raw) * static_cast<double>(enabled_ns) /
                                                   static_cast<double>(run_ns)));
}

}  // namespace

// The Grace guide's SCF metrics, all at once (NVIDIA Grace Performance Tuning Guide, SCF PMU
// metrics): more events than an SCF PMU's 8 counters and cycle counter, so they are multiplexed at
// perf's default 4 ms, and every count is the modelled total (1e6/s, cycles 1 GHz) as perf's scaling
// gives it.
TEST(RawMux, GraceAllScfMetricsRunDirectlyWithScaledCounts) {
  Bundled m("grace-2s");
  // One rate for every SCF event, the outstanding ones too (pmu-sim's defaults model those as
  // requests x latency), and 1 GHz cycles.
  test::SimProcess sim(m.root, {"--rate", "nvidia_grace_scf=1000000", "--rate", "nvidia_grace_scf:cycles=1000000000"});
  auto r = test::run_tool(
      "pmu-raw", m.args({"-a", "-M",
                         "scf_frequency,scf_local_mem_write_bw,scf_local_mem_read_bw,scf_local_gpu_mem_write_bw,"
                         "scf_local_gpu_mem_read_bw,scf_remote_mem_write_bw,scf_remote_mem_read_bw,"
                         "scf_local_mem_write_util,scf_local_gpu_mem_write_util,scf_remote_mem_write_util_s0,"
                         "scf_remote_mem_write_util_s1,scf_local_mem_read_util,scf_local_gpu_mem_read_util,"
                         "scf_remote_mem_read_util_s0,scf_remote_mem_read_util_s1,scf_local_mem_read_latency,"
                         "scf_local_gpu_mem_read_latency,scf_remote_mem_read_latency_s0,"
                         "scf_remote_mem_read_latency_s1",
                         "--duration", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto rows = counts_of(r.out);
  ASSERT_GT(rows.size(), 9u) << r.out;  // more events than 8 counters and a cycle counter
  for (const auto& [event, c] : rows) {
    const bool cycles = event.find("cycles") != std::string::npos;
    EXPECT_LT(c.pcnt, 100.0) << event;
    EXPECT_GT(c.run_ns, 0u) << event;
    EXPECT_EQ(c.value, perf_scaled(cycles ? 1e9 : 1e6, c.run_ns, 1'000'000'000)) << event << "\n" << r.out;
    EXPECT_EQ(c.value, cycles ? "1000000000" : "1000000") << event;  // whole counts per 4 ms: no rounding
  }
  EXPECT_NE(r.out.find("scf_frequency (nvidia_scf_pmu_0),,,1.000,GHz"), std::string::npos) << r.out;
  EXPECT_EQ(m.image_change(), "");
}

// The Yitian guide's Rx and Tx payload on one root port (Alibaba Yitian 710 PCIe PMU guide, its
// fio readwrite run): both need the root port's one time-based counter, so they take turns. With
// the guide's own counts per second and a 500 ms interval each is counted exactly half the time.
TEST(RawMux, YitianRxAndTxOnOneRootPortShareTheTimeBasedCounter) {
  Bundled m("yitian");
  test::SimProcess sim(m.root, {"--rate", "dwc_pcie:0x21=536910432", "--rate", "dwc_pcie:0x20=288016854"});
  const std::vector<std::string> events = {"-a", "-e", "pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/", "-e",
                                           "pcie_bdf_200/Tx_PCIe_TLP_Data_Payload/"};
  auto args = events;
  args.insert(args.end(), {"--duration", "20", "--mux-interval", "500", "-x", ","});
  auto r = test::run_tool("pmu-raw", m.args(args));
  ASSERT_EQ(r.status, 0) << r.err;
  // perf stat -x's columns: value, unit, event, the counter's running time in ns, pcnt-running.
  EXPECT_NE(r.out.find("10738208640,,pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/,10000000000,50.00,,"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("5760337080,,pcie_bdf_200/Tx_PCIe_TLP_Data_Payload/,10000000000,50.00,,"), std::string::npos)
      << r.out;
  // JSON lines: perf stat -j's event-runtime and pcnt-running.
  args = events;
  args.insert(args.end(), {"--duration", "20", "--mux-interval", "500", "-j"});
  auto j = test::run_tool("pmu-raw", m.args(args));
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_NE(j.out.find(R"("counter-value":"10738208640.000000","unit":"","event":"pcie_bdf_200/Rx_PCIe_TLP_Data_)"
                       R"(Payload/","event-runtime":10000000000,"pcnt-running":50.0)"),
            std::string::npos)
      << j.out;
  // The table: perf's "(50.00%)" after the event.
  args = events;
  args.insert(args.end(), {"--duration", "20", "--mux-interval", "500"});
  auto t = test::run_tool("pmu-raw", m.args(args));
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("10,738,208,640       pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/  (50.00%)"), std::string::npos)
      << t.out;
  // The guide's 15.854 s at perf's default 4 ms: 536910432/s is no whole count per window, so the
  // raw count is the model's floor of rate x time on the counter, and the scaled count is perf's.
  args = events;
  args.insert(args.end(), {"--duration", "15.854", "-x", ","});
  auto d = test::run_tool("pmu-raw", m.args(args));
  ASSERT_EQ(d.status, 0) << d.err;
  auto rows = counts_of(d.out);
  const auto& rx = rows.at("pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/");
  EXPECT_NEAR(rx.pcnt, 50.0, 0.05);
  EXPECT_NEAR(std::stod(rx.value), 536910432 * 15.854, 536910432 * 15.854 * 1e-6) << d.out;
  EXPECT_EQ(m.image_change(), "");
}

// A DesignWare lane counter is 32 bits with no overflow flag. Two events on it take turns every 5 s
// while it wraps every 1.43 s at 3e9/s: the counter is read often enough inside each turn, each
// turn starts from a cleared counter, and the scaled totals are perf's.
TEST(RawMux, RotationAcrossCounterWraps) {
  Bundled m("yitian");
  test::SimProcess sim(m.root, {"--rate", "dwc_pcie:0x70b=3000000000"});
  auto r = test::run_tool("pmu-raw", m.args({"-e", "dwc_rootport_3018/rx_memory_write,lane=0/", "-e",
                                             "dwc_rootport_3018/rx_memory_write,lane=0,name=again/", "--duration", "20",
                                             "--mux-interval", "5000", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto rows = counts_of(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  std::uint64_t run = 0;
  for (const auto& [event, c] : rows) {
    EXPECT_GT(c.run_ns, 4'000'000'000u) << event;  // more than one wrap in each turn
    EXPECT_EQ(c.value, perf_scaled(3e9, c.run_ns, 20'000'000'000)) << event;
    run += c.run_ns;
  }
  EXPECT_EQ(run, 20'000'000'000u);  // one on the counter at a time, always one
  EXPECT_EQ(m.image_change(), "");
}

// Lane events of one root port with different ids count at once (Linux dwc_pcie_pmu.c since
// 71396cfac97d, dwc_pcie_pmu_validate_add_lane_event): nothing rotates, each is counted the whole
// run (running = enabled, 100%), exact at its rate; the same id on another lane takes turns.
TEST(RawMux, LaneEventsOfOneRootPortCountTogether) {
  Bundled m("yitian");
  test::SimProcess sim(
      m.root, {"--rate", "dwc_pcie:0x700=1000000", "--rate", "dwc_pcie:0x70c=250000", "--rate", "dwc_pcie:0x602=3000"});
  auto r = test::run_tool("pmu-raw",
                          m.args({"-e", "dwc_rootport_3018/tx_memory_write,lane=0/", "-e",
                                  "{dwc_rootport_3018/rx_memory_read,lane=1/,dwc_rootport_3018/rx_ack_dllp,lane=3/}",
                                  "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto rows = counts_of(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_EQ(rows.at("dwc_rootport_3018/tx_memory_write,lane=0/").value, "2000000") << r.out;
  EXPECT_EQ(rows.at("dwc_rootport_3018/rx_memory_read,lane=1/").value, "500000") << r.out;
  EXPECT_EQ(rows.at("dwc_rootport_3018/rx_ack_dllp,lane=3/").value, "6000") << r.out;
  for (const auto& [event, c] : rows) {
    EXPECT_EQ(c.run_ns, 2'000'000'000u) << event;
    EXPECT_EQ(c.pcnt, 100.0) << event;
  }
  EXPECT_EQ(m.image_change(), "");
  // One id twice, on two lanes: one bit per id in the kernel's bitmap, so the two take turns.
  auto twice = test::run_tool("pmu-raw", m.args({"-e", "dwc_rootport_3018/tx_memory_write,lane=0/", "-e",
                                                 "dwc_rootport_3018/tx_memory_write,lane=1/", "--duration", "2",
                                                 "--mux-interval", "500", "-x", ","}));
  ASSERT_EQ(twice.status, 0) << twice.err;
  for (const auto& [event, c] : counts_of(twice.out)) EXPECT_EQ(c.pcnt, 50.0) << event << twice.out;
  EXPECT_EQ(m.image_change(), "");
}

TEST(RawMux, AGroupLargerThanTheCountersIsRefusedBeforeAnyWrite) {
  Bundled m("grace-2s");
  test::SimProcess sim(m.root);
  std::string group = "{";
  for (int i = 0; i < 9; ++i) group += fmt::format("{}nvidia_scf_pmu_0/event={:#x}/", i ? "," : "", 0x1a5 + i);
  auto r = test::run_tool("pmu-raw", m.args({"-e", group + "}", "--duration", "1"}));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.err.find("nvidia_scf_pmu_0: the group {"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not fit the counters (nvidia_scf_pmu_0: 9 events but the block has 8 counters"),
            std::string::npos)
      << r.err;
  // The same events without braces are multiplexed.
  auto loose = test::run_tool("pmu-raw", m.args({"-e", group.substr(1), "--duration", "1", "-x", ","}));
  EXPECT_EQ(loose.status, 0) << loose.err;
  EXPECT_EQ(m.image_change(), "");
}

// Ctrl-C while units rotate every millisecond (most of the run's real time is spent rotating):
// every register of every unit back as it was.
TEST(RawMux, SigintDuringRotationRestoresEveryRegister) {
  Bundled m("grace-2s");
  test::SimProcess sim(m.root);
  std::string events;
  for (int i = 0; i < 12; ++i) events += fmt::format("{}nvidia_scf_pmu_1/event={:#x}/", i ? "," : "", 0x1a5 + i);
  test::ToolProcess raw("pmu-raw", m.args({"-a", "-e", events, "--mux-interval", "1", "-I", "100"}));
  ASSERT_FALSE(raw.read_line().empty());
  raw.signal(SIGINT);
  EXPECT_EQ(raw.wait(), 128 + SIGINT) << raw.err();  // ended by the signal, as perf stat
  EXPECT_EQ(m.image_change(), "");
}

// An event merged over several boxes is as perf stat merges it (tools/perf/util/stat-display.c,
// uncore aliases): the scaled counts, the enabled times and the running times are each summed, so
// the merged pcnt-running is 100 x the boxes' running time over their enabled time -- not the least
// scheduled box's. Here uncore_imc_0 -- a box on each of spr-2s's two sockets -- has 5 events on its
// 4 counters (two sets, each on half the time) and the other 14 IMC boxes count cas_count_read all
// the time.
TEST(RawMux, AMergedEventSumsItsBoxesEnabledAndRunningTimes) {
  Bundled m("spr-2s");
  test::SimProcess sim(m.root);
  auto r = test::run_tool("pmu-raw", m.args({"-a", "-e", "uncore_imc/cas_count_read/", "-e", "uncore_imc_0/event=0x1/",
                                             "-e", "uncore_imc_0/event=0x2/", "-e", "uncore_imc_0/event=0x3/", "-e",
                                             "uncore_imc_0/event=0x4/", "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto rows = counts_of(r.out);
  const auto& cas = rows.at("uncore_imc/cas_count_read/");
  // 14 boxes x 2 s running and enabled, two boxes 1 s running of 2 s enabled: 93.75%, not 50%.
  const std::uint64_t enabled = 16 * 2'000'000'000ull, running = 14 * 2'000'000'000ull + 2 * 1'000'000'000ull;
  EXPECT_EQ(cas.run_ns, running) << r.out;
  EXPECT_NEAR(cas.pcnt, 100.0 * static_cast<double>(running) / static_cast<double>(enabled), 0.005) << r.out;
  EXPECT_EQ(m.image_change(), "");
}
