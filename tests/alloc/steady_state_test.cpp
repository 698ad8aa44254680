// Nothing allocated per interval in steady state: this program replaces the global operator new
// with one that counts (counting_new.cpp), and checks that after the first interval neither a direct session's
// sample() (its flat MMIO pass and its guarded MSR and config-space reads) nor pmu-raw's interval
// output (table, CSV and JSON; merged and per box; with a metric) allocates; and that pmu-raw's
// whole run loop (backend read, aggregation, metrics, output) allocates nothing per interval after
// the first two, multiplexed or not, against pmu-sim; and that multiplexing rotates sets without
// allocating once every set has been on (a session's turns, pmu-raw's rotation every interval).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "counting_new.h"
#include "pmu-raw/counting.h"
#include "pmu-raw/report.h"
#include "pmukit/access/machine.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/session.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/snapshot/machine_spec.h"
#include "run_helpers.h"
#include "support/bundled_rig.h"
#include "support/machines.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

using test::allocations_of;

syntax::EncodedEvent ev(std::uint64_t config) {
  syntax::EncodedEvent e;
  e.config = config;
  return e;
}

// The spr machine with every access type (MMIO, MSR, PCI config space), discovered, and a
// simulator to settle a session's writes: what the session tests below program.
class SteadyState : public ::testing::Test {
 protected:
  static std::filesystem::path built_in(const test::TempDir& dir) {
    families::build_from_spec(test::spr_every_access_type(nlohmann::json::array()), dir.path() / "m");
    return dir.path() / "m";
  }
  const discovery::PmuUnit* unit(const std::string& name) const {
    for (const auto& u : found_.inventory.units)
      if (u.name == name) return &u;
    throw std::runtime_error(name + ": not in the machine");
  }
  pmu::SessionOptions options() {
    pmu::SessionOptions o;
    o.settle = &sim_;
    return o;
  }

  test::TempDir dir_;
  Machine machine_{MachineOptions{built_in(dir_)}};
  discovery::DiscoveryResult found_ = families::discover(machine_);
  sim::Simulator sim_{machine_, found_.inventory, sim::Rates::defaults()};
};

TEST_F(SteadyState, TheAllocatorCounts) {
  // The checks below would pass vacuously if the replacement were not the one in use. (A
  // new-expression may be elided; a string of a length known only at run time may not.)
  volatile std::size_t n = 100;
  EXPECT_GE(allocations_of([&] { EXPECT_EQ(std::string(n, 'x').size(), 100u); }), 1u);
}

TEST_F(SteadyState, DirectSampleAllocatesNothingAfterTheFirst) {
  // MMIO (the flat pass), MSR and PCI config space (the guarded path).
  pmu::DirectSession s(machine_,
                       {{unit("uncore_imc_2"), {ev(0xcf05), ev(0xf005)}},
                        {unit("uncore_cha_1"), {ev(0x01)}},
                        {unit("uncore_m2m"), {ev(0x02)}}},
                       platform::Database::builtin(), options());
  s.start();
  sim_.step(1'000'000);
  s.sample();
  std::uint64_t last = 0;
  for (int i = 0; i < 5; ++i) {
    sim_.step(10'000'000);
    EXPECT_EQ(allocations_of([&] { last = s.sample()[0][0].delta; }), 0u) << "interval " << i;
  }
  EXPECT_GT(last, 0u);  // the counts moved: the pass did read
  s.restore();
}

// A session's turns (time-division multiplexing) on all three sampling paths: MMIO (the flat pass:
// sets of 4 and 1 events, so the unit's room is partly unused in turn), MSR (batched: 4 and 2, so
// the batched lists are regrouped) and PCI config space (batched: 4 and 4, the same registers
// retargeted). Once each unit has had both sets on its counters, neither a turn nor a sample
// allocates.
TEST_F(SteadyState, SessionTurnsAllocateNothingAfterTheFirstCycle) {
  const std::vector<std::vector<std::vector<syntax::EncodedEvent>>> turns = {
      {{ev(0x01), ev(0x02), ev(0x03), ev(0x04)}, {ev(0x05)}},
      {{ev(0x01), ev(0x02), ev(0x03), ev(0x04)}, {ev(0x05), ev(0x06)}},
      {{ev(0x01), ev(0x02), ev(0x03), ev(0x04)}, {ev(0x05), ev(0x06), ev(0x07), ev(0x08)}}};
  pmu::DirectSession s(
      machine_,
      {{unit("uncore_imc_2"), turns[0][0]}, {unit("uncore_cha_1"), turns[1][0]}, {unit("uncore_m2m"), turns[2][0]}},
      platform::Database::builtin(), options());
  for (std::size_t u = 0; u < turns.size(); ++u) s.plan_turns(u, turns[u]);
  s.start();
  for (int round = 0; round < 8; ++round) {
    sim_.step(10'000'000);
    const std::size_t t = static_cast<std::size_t>(round + 1) % 2;
    const std::size_t n = allocations_of([&] {
      s.sample();
      for (std::size_t u = 0; u < turns.size(); ++u) s.turn(u, t);
    });
    if (round >= 2) {
      EXPECT_EQ(n, 0u) << "round " << round;
    }
    sim_.step(10'000'000);
    const auto& v = s.sample();
    for (std::size_t u = 0; u < turns.size(); ++u) {
      ASSERT_EQ(v[u].size(), turns[u][t].size()) << "unit " << u << " round " << round;
      for (const auto& c : v[u]) EXPECT_GT(c.delta, 0u) << "unit " << u << " round " << round;  // the set counts
    }
  }
  s.restore();
}

struct ReportCase {
  tools::Format format;
  tools::Aggregation aggregation;
  const char* name;
};

class SteadyStateReport : public ::testing::TestWithParam<ReportCase> {};

TEST_P(SteadyStateReport, IntervalOutputAllocatesNothingAfterTheFirst) {
  const ReportCase& c = GetParam();
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  tools::ReportOptions o;
  o.format = c.format;
  o.aggregation = c.aggregation;
  o.interval = true;
  o.out = out;
  tools::Reporter reporter(o);
  // Two events on two boxes of two sockets, one with a scale and one multiplexed, and a metric:
  // names long enough that any std::string made of them would be on the heap.
  std::vector<tools::Row> rows;
  const char* pmus[] = {"uncore_imc_free_running_0", "uncore_imc_free_running_1"};
  for (int box = 0; box < 2; ++box)
    for (std::size_t e = 0; e < 2; ++e) {
      tools::Row r;
      r.spec = e;
      r.event = e ? std::string_view("uncore_imc/cas_count_write_long_name/")
                  : std::string_view("uncore_imc_free_running/data_read_long_name/");
      r.pmu = pmus[box];
      r.socket = box;
      r.count = r.raw = 123456789012ull + 1000 * e;
      r.scale = e ? 1.0 : 6.103515625e-05;
      r.unit = e ? "" : "MiB";
      r.enabled_ns = 10'000'000;
      r.running_ns = e ? 5'000'000 : 10'000'000;
      r.backend = "direct";
      rows.push_back(r);
    }
  std::vector<tools::MetricRow> metrics(1);
  metrics[0].name = "memory_bandwidth_read_long_metric_name (uncore_imc)";
  metrics[0].unit = "MB/s";
  metrics[0].value = 12345.678;
  if (c.aggregation == tools::Aggregation::PerBox) metrics[0].group = "uncore_imc_free_running_0";
  reporter.interval(0.010000000, rows, metrics);
  for (int i = 2; i < 6; ++i) {
    for (auto& r : rows) r.count += 7;
    EXPECT_EQ(allocations_of([&] { reporter.interval(0.01 * i, rows, metrics); }), 0u) << "interval " << i;
  }
  EXPECT_GT(std::ftell(out), 0L);
  std::fclose(out);
}

INSTANTIATE_TEST_SUITE_P(Formats, SteadyStateReport,
                         ::testing::Values(ReportCase{tools::Format::Table, tools::Aggregation::Merged, "TableMerged"},
                                           ReportCase{tools::Format::Table, tools::Aggregation::PerBox, "TablePerBox"},
                                           ReportCase{tools::Format::Csv, tools::Aggregation::Merged, "CsvMerged"},
                                           ReportCase{tools::Format::Csv, tools::Aggregation::PerBox, "CsvPerBox"},
                                           ReportCase{tools::Format::Json, tools::Aggregation::Merged, "JsonMerged"},
                                           ReportCase{tools::Format::Json, tools::Aggregation::PerBox, "JsonPerBox"},
                                           ReportCase{tools::Format::Csv, tools::Aggregation::PerSocket,
                                                      "CsvPerSocket"}),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace

namespace {

// The run's own clock (pmu-sim's page), counting what the run loop allocates between two of its
// sleeps: one turn of the loop (a read, or an interval: read, aggregation, metrics, output). What
// the sleep itself allocates is not counted: on hardware it is one nanosleep.
class CountingClock : public Clock {
 public:
  explicit CountingClock(std::unique_ptr<Clock> inner) : inner_(std::move(inner)) {}
  std::uint64_t now_ns() override { return inner_->now_ns(); }
  bool sleep_until(std::uint64_t t_ns) override {
    turns_.push_back({woke_at_, test::allocation_count() - after_sleep_});
    const bool reached = inner_->sleep_until(t_ns);
    woke_at_ = inner_->now_ns();
    after_sleep_ = test::allocation_count();
    return reached;
  }
  const char* describe() const override { return inner_->describe(); }
  struct Turn {
    std::uint64_t from_ns;  // the time the turn started at (0: the start of the run)
    std::size_t allocations;
  };
  std::vector<Turn> turns_;

 private:
  std::unique_ptr<Clock> inner_;  // the run's backend keeps a reference to it: it stays where it is
  std::uint64_t woke_at_ = 0;
  std::size_t after_sleep_ = 0;
};

struct LoopCase {
  const char* name;
  std::vector<std::string> events;
  std::vector<std::string> metrics;
  tools::Aggregation aggregation;
  tools::Format format;
  std::uint64_t mux_interval_ms = counting::kDefaultMuxIntervalMs;
  const char* shows = "";  // what the output must show (the metric, the event off the counters)
};
void PrintTo(const LoopCase& c, std::ostream* os) {
  *os << c.name;
}

class SteadyStateRunLoop : public ::testing::TestWithParam<LoopCase> {};

// What one pmu-raw run on gnr-2s under pmu-sim allocated in each turn of its loop, and what it printed.
struct CountedRun {
  std::vector<CountingClock::Turn> turns;
  std::uint64_t t0 = 0;  // the clock when the run started
  std::string text;
};

CountedRun run_counted(const LoopCase& c, std::uint64_t interval_ms, std::uint64_t intervals,
                       const std::string& machine = "gnr-2s") {
  test::BundledRig rig(machine);
  test::SimProcess sim(rig.root);
  tools::RawOptions o;
  o.events = c.events;
  o.metrics = c.metrics;
  o.interval_ms = interval_ms;
  o.interval_count = intervals;
  o.mux_interval_ms = c.mux_interval_ms;
  o.backend = "direct";
  o.report.format = c.format;
  o.report.aggregation = c.aggregation;
  o.report.interval = true;
  counting::Run run(*rig.machine, tools::counting_request(o));
  EXPECT_TRUE(run.time.simulated());
  auto counting = std::make_unique<CountingClock>(std::move(run.time.clock));
  CountingClock& clock = *counting;
  run.time.clock = std::move(counting);
  CountedRun result;
  result.t0 = clock.now_ns();
  result.text = test::run_loop_output(o, run);
  result.turns = clock.turns_;
  EXPECT_EQ(rig.image_change(), "");
  return result;
}

// gnr-2s: 24 IMC boxes over MMIO (4 counters each) and 4 B2CXL boxes (8 each).
TEST_P(SteadyStateRunLoop, AnIntervalAllocatesNothingAfterTheSecond) {
  const LoopCase& c = GetParam();
  constexpr std::uint64_t kIntervalMs = 10, kIntervals = 8;
  const CountedRun run = run_counted(c, kIntervalMs, kIntervals);
  std::size_t checked = 0;
  for (const auto& turn : run.turns) {
    // The turn woken at k intervals prints interval k; the first two grow the buffers (the read
    // and the pending rows trade places: each has grown once by the end of the second).
    if (turn.from_ns <= run.t0 + 2 * kIntervalMs * 1'000'000) continue;
    ++checked;
    EXPECT_EQ(turn.allocations, 0u) << "the turn from " << (turn.from_ns - run.t0) << " ns";
  }
  EXPECT_EQ(checked, kIntervals - 3);  // 3 to 7: the loop ends after the last without a sleep
  EXPECT_NE(run.text.find(c.shows), std::string::npos) << run.text;  // it did print the intervals
}

// bench/interval_cpu.py's MMIO-only set: 4 IMC events on each of 24 boxes, 8 B2CXL events on
// each of 4 (128 counters).
const std::vector<std::string> kMmio = {"uncore_imc/event=0x05,umask=0xcf/",   "uncore_imc/event=0x05,umask=0xf0/",
                                        "uncore_imc/event=0x01,umask=0x00/",   "uncore_imc/event=0x02,umask=0x00/",
                                        "uncore_b2cxl/event=0x01,umask=0x00/", "uncore_b2cxl/event=0x02,umask=0x00/",
                                        "uncore_b2cxl/event=0x03,umask=0x00/", "uncore_b2cxl/event=0x04,umask=0x00/",
                                        "uncore_b2cxl/event=0x05,umask=0x00/", "uncore_b2cxl/event=0x06,umask=0x00/",
                                        "uncore_b2cxl/event=0x07,umask=0x00/", "uncore_b2cxl/event=0x08,umask=0x00/"};
// With a metric on every IMC box (GNR: both sub-channels of each): the metric's own IMC events, so the boxes' counters
// are not oversubscribed.
const std::vector<std::string> kB2cxl = {"uncore_b2cxl/event=0x01,umask=0x00/", "uncore_b2cxl/event=0x02,umask=0x00/"};
// Five IMC events on four counters: every IMC box multiplexes, its fifth event off the counters
// (counted 0 of the window, scaled as perf scales it). The next set would go on after 1 s, past
// the run: what a rotation allocates is SteadyStateMultiplexing's (below).
const std::vector<std::string> kImcMultiplexed = {
    "uncore_imc/event=0x05,umask=0xcf/", "uncore_imc/event=0x05,umask=0xf0/", "uncore_imc/event=0x01,umask=0x00/",
    "uncore_imc/event=0x02,umask=0x00/", "uncore_imc/event=0x03,umask=0x00/"};

using tools::Aggregation, tools::Format;
INSTANTIATE_TEST_SUITE_P(
    Runs, SteadyStateRunLoop,
    ::testing::Values(
        LoopCase{"PerBoxCsv", kMmio, {}, Aggregation::PerBox, Format::Csv, 4, "uncore_b2cxl_1/event=0x08"},
        LoopCase{"MergedTable", kMmio, {}, Aggregation::Merged, Format::Table, 4, "uncore_imc/event=0x02"},
        LoopCase{
            "MergedTableWithMetric", kB2cxl, {"imc_read_bw"}, Aggregation::Merged, Format::Table, 4, "imc_read_bw"},
        LoopCase{"PerBoxJsonWithMetric", kB2cxl, {"imc_read_bw"}, Aggregation::PerBox, Format::Json, 4, "imc_read_bw"},
        LoopCase{
            "PerSocketCsvWithMetric", kB2cxl, {"imc_read_bw"}, Aggregation::PerSocket, Format::Csv, 4, "imc_read_bw"},
        LoopCase{"MultiplexedPerBoxCsv", kImcMultiplexed, {}, Aggregation::PerBox, Format::Csv, 1000, "<not counted>"}),
    [](const auto& p) { return std::string(p.param.name); });

// Whether a line of pmu-raw's interval CSV gives `event` a count: a field of digits only before
// the event's (the time has a point; "<not counted>" is not one).
bool counted_in(const std::string& csv, const std::string& event) {
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find(event);
    if (at == std::string::npos) continue;
    std::istringstream fields(line.substr(0, at));
    for (std::string f; std::getline(fields, f, ',');)
      if (!f.empty() && f.find_first_not_of("0123456789") == std::string::npos) return true;
  }
  return false;
}

// Time-division multiplexing in steady state, the next set every interval, so that every turn of
// the loop after the first rotates every multiplexed unit (stop, reset, configure, start, and the
// sampling pass of the units whose events changed). Once every unit has had each of its sets on
// its counters (`cycle` rotations) and the output's buffers have grown (2 intervals), a turn
// allocates nothing.
struct RotationCase {
  const char* name;
  const char* machine;
  std::vector<std::string> events;
  std::uint64_t cycle;  // the most sets a unit takes turns with
  const char* last;     // an event of the last set: its row has a count once every set has been on
};
void PrintTo(const RotationCase& c, std::ostream* os) {
  *os << c.name;
}

class SteadyStateMultiplexing : public ::testing::TestWithParam<RotationCase> {};

TEST_P(SteadyStateMultiplexing, ARotationAllocatesNothingAfterTheFirstCycle) {
  const RotationCase& r = GetParam();
  constexpr std::uint64_t kIntervalMs = 10, kIntervals = 12;
  const LoopCase c{r.name, r.events, {}, Aggregation::PerBox, Format::Csv, kIntervalMs, r.last};
  const CountedRun run = run_counted(c, kIntervalMs, kIntervals, r.machine);
  std::size_t checked = 0, first = 0;
  for (const auto& turn : run.turns) {
    if (turn.from_ns > run.t0 && turn.from_ns <= run.t0 + kIntervalMs * 1'000'000) first = turn.allocations;
    if (turn.from_ns <= run.t0 + (r.cycle + 1) * kIntervalMs * 1'000'000) continue;
    ++checked;
    EXPECT_EQ(turn.allocations, 0u) << "the turn from " << (turn.from_ns - run.t0) << " ns";
  }
  EXPECT_EQ(checked, kIntervals - r.cycle - 2);  // the loop ends after the last interval without a sleep
  EXPECT_GT(first, 0u);  // the first rotation did allocate: the counting above sees a turn's work
  // Every set was on the counters in turn: the last one's event has a count in some interval.
  EXPECT_TRUE(counted_in(run.text, r.last)) << run.text;
}

// The events `pattern` names with event numbers from..to (its one {} field).
std::vector<std::string> numbered(const char* pattern, int from, int to) {
  std::vector<std::string> events;
  for (int e = from; e <= to; ++e) events.push_back(fmt::format(fmt::runtime(pattern), e));
  return events;
}
std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    Rotations, SteadyStateMultiplexing,
    ::testing::Values(
        // gnr-2s: 9 IMC events on 4 counters (sets of 4, 4 and 1) and 10 B2CXL events on 8 (8 and
        // 2): 28 boxes (24 IMC, 4 B2CXL) on the flat MMIO pass.
        RotationCase{"GnrImcB2cxl", "gnr-2s",
                     numbered("uncore_imc/event={:#04x},umask=0x00/", 1, 9) +
                         numbered("uncore_b2cxl/event={:#04x},umask=0x00/", 1, 10),
                     3, "uncore_imc_0/event=0x09,umask=0x00/"},
        // yitian's CMN-700 mesh: 9 events over its 28 HN-F nodes (each one local counter in the
        // DTM of each HN-F's crosspoint, 4 per DTM: sets of 4, 4 and 1), and the DTC cycle counter.
        RotationCase{"YitianCmn", "yitian",
                     numbered("arm_cmn_0/type=0x5,eventid={:#04x}/", 1, 9) +
                         std::vector<std::string>{"arm_cmn_0/dtc_cycles/"},
                     3, "arm_cmn_0/type=0x5,eventid=0x09/,"},
        // t410-2s: 12 events on each socket's UCF CoreSight PMU (8 counters) and 20 on one
        // PCIe root complex's, with the C2C and CMEM blocks outside CoreSight counting along.
        RotationCase{
            "T410CoreSight", "t410-2s",
            numbered("nvidia_ucf_pmu/event={:#04x}/", 1, 12) +
                numbered("nvidia_pcie_pmu_0_rc_0/event={:#04x}/", 1, 20) +
                std::vector<std::string>{"nvidia_nvlink_c2c_pmu_0/in_rd_req/", "nvidia_cmem_latency_pmu_0/rd_req/"},
            3, "nvidia_pcie_pmu_0_rc_0/event=0x14/,"}),
    [](const auto& p) { return std::string(p.param.name); });

}  // namespace
