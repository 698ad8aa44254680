// The counting API: the backend chosen per PMU by a typed mode, and the read loop counting a bundled
// machine under pmu-sim's virtual time -- a run's totals against the sum of its intervals, and a
// workload's lifetime bounding the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "pmukit/counting/read_loop.h"
#include "pmukit/util/error.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"

using namespace pmukit;
using counting::BackendMode;

namespace {

TEST(BackendMode, NamesAreTheBackendOptionsWords) {
  for (auto mode : {BackendMode::Direct, BackendMode::Perf, BackendMode::Auto})
    EXPECT_EQ(counting::backend_mode(counting::backend_mode_name(mode)), mode);
  EXPECT_EQ(counting::backend_mode("direct"), BackendMode::Direct);
  EXPECT_EQ(counting::backend_mode("perf"), BackendMode::Perf);
  EXPECT_EQ(counting::backend_mode("auto"), BackendMode::Auto);
  EXPECT_EQ(counting::backend_mode("Auto"), std::nullopt);
  EXPECT_EQ(counting::backend_mode(""), std::nullopt);
}

std::string usage_error(Machine& machine, const counting::Request& request) {
  try {
    counting::Run run(machine, request);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// spr-2s has no kernel perf PMUs: its units are counted directly or not at all. pmu-sim runs on it, as
// a static snapshot's registers are files that no unit may be programmed on.
TEST(BackendChoice, APmuOfItsOwnModeOverridesTheRequestsMode) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  counting::Request request;
  request.events = {"uncore_imc/cas_count_read/"};
  request.backend.mode = BackendMode::Perf;
  EXPECT_NE(usage_error(*rig.machine, request).find("the kernel has no perf PMU 'uncore_imc'"), std::string::npos);
  request.backend.per_pmu["uncore_imc"] = BackendMode::Direct;
  {
    counting::Run run(*rig.machine, request);
    ASSERT_FALSE(run.backend->notes().empty());
    EXPECT_EQ(run.backend->notes().front(), "uncore_imc: direct, 16 units");
  }
  request.events = {"uncore_imc/cas_count_read/", "uncore_cha/clockticks/"};
  request.backend.mode = BackendMode::Direct;
  request.backend.per_pmu = {{"uncore_cha", BackendMode::Perf}};
  EXPECT_NE(usage_error(*rig.machine, request).find("event 'uncore_cha/clockticks/': the kernel has no perf PMU"),
            std::string::npos);
  EXPECT_EQ(rig.image_change(), "");
}

// A caller that discovered the machine already (pmu-exporter, for its device labels) hands the
// result to the Run, which counts on those units and does not discover again: a unit left out of
// the given inventory is not counted.
TEST(Run, CountsOnTheUnitsTheCallerDiscovered) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  counting::Request request;
  request.events = {"uncore_imc/cas_count_read/"};
  request.discovered = rig.found;
  auto& units = request.discovered->inventory.units;
  const auto is_imc = [](const discovery::PmuUnit& u) { return u.name.starts_with("uncore_imc_"); };
  ASSERT_EQ(std::count_if(units.begin(), units.end(), is_imc), 16);
  units.erase(std::find_if(units.begin(), units.end(), is_imc));
  counting::Run run(*rig.machine, request);
  ASSERT_FALSE(run.backend->notes().empty());
  EXPECT_EQ(run.backend->notes().front(), "uncore_imc: direct, 15 units");
}

// Each event's totals by spec, summed over its units.
struct Sums : counting::Sink {
  std::vector<std::map<std::size_t, std::uint64_t>> intervals;
  std::map<std::size_t, std::uint64_t> totals_by_spec;
  std::uint64_t elapsed = 0;
  std::vector<std::uint64_t> windows;
  std::vector<bool> as_before;  // each interval's rows_as_before
  void interval(std::uint64_t, std::uint64_t window_ns, const std::vector<counting::Row>& rows,
                const std::vector<counting::MetricRow>&) override {
    auto& sums = intervals.emplace_back();
    for (const auto& r : rows) sums[r.spec] += r.count;
    windows.push_back(window_ns);
    as_before.push_back(rows_as_before);
  }
  void totals(std::uint64_t elapsed_ns, const std::vector<counting::Row>& rows,
              const std::vector<counting::MetricRow>&) override {
    for (const auto& r : rows) totals_by_spec[r.spec] += r.count;
    elapsed = elapsed_ns;
  }
};

// On virtual time the loop's sleeps move the clock: a second counted whole and the same second
// counted in four intervals give the same counts (the modelled rates are constant).
TEST(ReadLoop, ASecondsTotalsAreTheSumOfItsIntervals) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  counting::Request request;
  request.events = {"uncore_imc/cas_count_read/", "uncore_imc/cas_count_write/", "duration_time"};
  Sums whole, parts;
  {
    counting::Run run(*rig.machine, request);
    ASSERT_TRUE(run.time.virtual_time);
    counting::LoopOptions o;
    o.duration_ns = 1'000'000'000;
    counting::ReadLoop loop(run, o, whole);
    loop.count();
    EXPECT_EQ(loop.finish(), std::vector<std::string>{});
  }
  {
    counting::Run run(*rig.machine, request);
    counting::LoopOptions o;
    o.interval_ns = 250'000'000;
    o.interval_count = 4;
    counting::ReadLoop loop(run, o, parts);
    loop.count();
    EXPECT_EQ(loop.finish(), std::vector<std::string>{});
  }
  EXPECT_EQ(whole.elapsed, 1'000'000'000u);
  EXPECT_TRUE(whole.intervals.empty());
  ASSERT_EQ(parts.intervals.size(), 4u);
  EXPECT_EQ(parts.windows, std::vector<std::uint64_t>(4, 250'000'000));
  // The direct backend rereads: after the first interval, each interval's rows are the last one's.
  EXPECT_EQ(parts.as_before, (std::vector<bool>{false, true, true, true}));
  EXPECT_TRUE(parts.totals_by_spec.empty());
  ASSERT_EQ(whole.totals_by_spec.size(), 3u);
  for (const auto& [spec, total] : whole.totals_by_spec) {
    std::uint64_t sum = 0;
    for (const auto& i : parts.intervals) sum += i.at(spec);
    EXPECT_EQ(sum, total) << "spec " << spec;
    EXPECT_GT(total, 0u) << "spec " << spec;
  }
  EXPECT_EQ(whole.totals_by_spec.at(2), 1'000'000'000u);  // duration_time: the nanoseconds counted
  EXPECT_EQ(rig.image_change(), "");
}

// A workload bounds the run: pmu-sim's clock stands still while `true` runs, so the run counts the
// command's real duration as modelled time and ends when it exits, with its status.
TEST(ReadLoop, AWorkloadEndsTheRunWithItsStatus) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  counting::Request request;
  request.events = {"uncore_imc/cas_count_read/"};
  counting::Run run(*rig.machine, request);
  counting::LoopOptions o;
  o.command = {"sh", "-c", "exit 3"};
  Sums sums;
  counting::ReadLoop loop(run, o, sums);
  loop.count();
  EXPECT_EQ(loop.finish(), std::vector<std::string>{});
  EXPECT_EQ(loop.child_status(), 3);
  EXPECT_EQ(sums.elapsed, loop.elapsed_ns());
  EXPECT_EQ(sums.totals_by_spec.size(), 1u);
}

}  // namespace
