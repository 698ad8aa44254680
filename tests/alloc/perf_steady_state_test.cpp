// Nothing allocated per interval in steady state, through the perf backend: pmu-raw's run loop
// (--backend perf: the composite backend, the perf backend's read, EventSet::read's group reads on
// each CPU it visits, aggregation and output) counting this machine's software and msr PMUs on
// every CPU, in table, CSV and JSON, merged, per PMU and per socket; and EventSet::read alone.
// The counts are the kernel's, read for real; the run's time is stepped (SteppedClock), so the
// loop's turns follow one another with no wait. Skipped where perf_event_open may not count the
// msr PMU system-wide (perf_event_paranoid, seccomp, no msr PMU).
#include <gtest/gtest.h>
#include <sched.h>

#include <memory>
#include <string>
#include <vector>

#include "counting_new.h"
#include "pmukit/access/machine.h"
#include "pmukit/perf/event_set.h"
#include "pmukit/syntax/event_parser.h"
#include "run_helpers.h"
#include "unit/perf/live_perf.h"

using namespace pmukit;

namespace {

// The run's time, moved by the run loop itself: each sleep_until jumps to the time asked for, at
// once. What the loop allocates between two sleeps is one turn: after the first sleep, one
// interval (backend read, aggregation, output). The perf backend reads the kernel's counters at
// each turn whatever the clock says; only the intervals' time stamps are the stepped ones.
class SteppedClock : public Clock {
 public:
  std::uint64_t now_ns() override { return now_; }
  bool sleep_until(std::uint64_t t_ns) override {
    turns_.push_back(test::allocation_count() - after_sleep_);
    if (t_ns > now_) now_ = t_ns;
    after_sleep_ = test::allocation_count();
    return true;
  }
  const char* describe() const override { return "stepped test time"; }
  std::vector<std::size_t> turns_;  // allocations per turn; [0]: from the clock's making to the first sleep

 private:
  std::uint64_t now_ = 1'000'000'000;
  std::size_t after_sleep_ = test::allocation_count();
};

// bench/interval_cpu.py's perf set (the msr PMU's TSC; cpu-clock, task-clock, page-faults,
// context-switches, cpu-migrations of the software PMU), a named one, and a generic software
// event with perf's msec scale: two groups per CPU (msr; software with 7 members).
const std::vector<std::string> kEvents = {"msr/tsc/",           "software/config=0/",         "software/config=1/",
                                          "software/config=2/", "software/config=3,name=cs/", "software/config=4/",
                                          "cpu-clock"};

struct PerfLoopCase {
  const char* name;
  tools::Aggregation aggregation;
  tools::Format format;
};
void PrintTo(const PerfLoopCase& c, std::ostream* os) {
  *os << c.name;
}

struct CountedRun {
  std::vector<std::size_t> turns;
  std::string text;
};

CountedRun run_counted(const PerfLoopCase& c, std::uint64_t intervals) {
  Machine machine = Machine::live();
  tools::RawOptions o;
  o.events = kEvents;
  o.interval_ms = 100;
  o.interval_count = intervals;
  o.backend = "perf";
  o.report.format = c.format;
  o.report.aggregation = c.aggregation;
  o.report.interval = true;
  counting::Run run(machine, tools::counting_request(o));
  auto stepped = std::make_unique<SteppedClock>();
  SteppedClock& clock = *stepped;
  run.time.clock = std::move(stepped);  // the perf backend keeps no reference to the clock
  CountedRun result;
  result.text = test::run_loop_output(o, run);
  result.turns = clock.turns_;
  return result;
}

class PerfSteadyStateRunLoop : public ::testing::TestWithParam<PerfLoopCase> {};

TEST_P(PerfSteadyStateRunLoop, AnIntervalAllocatesNothingAfterTheSecond) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  constexpr std::uint64_t kIntervals = 8;
  const CountedRun run = run_counted(GetParam(), kIntervals);
  // Turn k (k >= 1) prints interval k; the last interval ends the loop without a sleep. The first
  // two grow the buffers (the read and the previous read trade places: each has grown once by
  // the end of the second).
  ASSERT_EQ(run.turns.size(), kIntervals);
  EXPECT_GT(run.turns[0] + run.turns[1], 0u);  // the counting sees a turn's work: the first ones allocate
  for (std::size_t k = 3; k < run.turns.size(); ++k) EXPECT_EQ(run.turns[k], 0u) << "interval " << k;
  // Every interval printed every event, once per socket with PerSocket (once otherwise).
  auto lines_with = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = run.text.find(what); at != std::string::npos; at = run.text.find(what, at + 1)) ++n;
    return n;
  };
  const std::size_t per_event = lines_with("msr/tsc/");
  EXPECT_GE(per_event, kIntervals) << run.text;
  EXPECT_EQ(per_event % kIntervals, 0u) << run.text;
  EXPECT_EQ(lines_with("software/config=4/"), per_event) << run.text;
  EXPECT_EQ(lines_with("cpu-clock"), per_event) << run.text;
  EXPECT_EQ(lines_with("msec"), per_event) << run.text;  // cpu-clock's unit, from the software PMU's table
}

using tools::Aggregation, tools::Format;
INSTANTIATE_TEST_SUITE_P(Runs, PerfSteadyStateRunLoop,
                         ::testing::Values(PerfLoopCase{"MergedTable", Aggregation::Merged, Format::Table},
                                           PerfLoopCase{"MergedCsv", Aggregation::Merged, Format::Csv},
                                           PerfLoopCase{"MergedJson", Aggregation::Merged, Format::Json},
                                           PerfLoopCase{"PerBoxCsv", Aggregation::PerBox, Format::Csv},
                                           PerfLoopCase{"PerBoxJson", Aggregation::PerBox, Format::Json},
                                           PerfLoopCase{"PerSocketTable", Aggregation::PerSocket, Format::Table}),
                         [](const auto& p) { return std::string(p.param.name); });

// Two CPUs this thread may run on: then EventSet::read goes to the other CPU to read its groups.
bool two_allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
}

// EventSet::read into reused counts, on every CPU: the per-CPU visit (CpuVisitor), one group read
// per CPU and group, the sums and the scaling allocate nothing after the first read.
TEST(PerfSteadyState, EventSetReadAllocatesNothingAfterTheFirst) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  if (!two_allowed_cpus()) GTEST_SKIP() << "needs two CPUs this thread may run on (the per-CPU visit)";
  Machine machine = Machine::live();
  std::string list;
  for (const auto& e : kEvents) list += (list.empty() ? "" : ",") + e;
  perf::EventSet set(machine, perf::bind_events(machine, syntax::parse_event_list(list)), perf::CountOptions{});
  set.enable();
  std::vector<perf::EventCount> counts;
  set.read(counts);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(test::allocations_of([&] { set.read(counts); }), 0u) << "read " << i;
  set.disable();
  ASSERT_EQ(counts.size(), kEvents.size());
  EXPECT_GT(counts[0].raw, 0u);        // the TSC moved: the reads did read
  EXPECT_GE(counts[0].instances, 2u);  // summed over the CPUs
}

}  // namespace
