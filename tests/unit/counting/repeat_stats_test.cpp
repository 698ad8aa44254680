// counting::RepeatedRuns: perf stat -r's means over the runs and the spread of each line's count,
// the standard error of the mean relative to it (perf's stddev_stats and rel_stddev_stats).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "pmukit/counting/repeat_stats.h"
#include "pmukit/util/error.h"

using namespace pmukit;
using counting::Grouping;
using counting::Row;

namespace {

Row row(std::string_view pmu, int socket, std::uint64_t count) {
  Row r;
  r.event = "uncore_imc/cas_count_read/";
  r.pmu = pmu;
  r.socket = socket;
  r.count = r.raw = count;
  r.enabled_ns = r.running_ns = 1000;
  return r;
}

// The sample standard deviation of `v` over sqrt(n), relative to the mean, in percent: worked out
// here the textbook way, not as the class does it.
double spread(const std::vector<double>& v) {
  double mean = 0, ss = 0;
  for (double x : v) mean += x / static_cast<double>(v.size());
  for (double x : v) ss += (x - mean) * (x - mean);
  return 100.0 * std::sqrt(ss / static_cast<double>(v.size() - 1) / static_cast<double>(v.size())) / mean;
}

TEST(RunningStats, MeanAndStandardErrorOfTheMean) {
  counting::RunningStats s;
  for (double v : {10.0, 12.0, 14.0, 20.0}) s.add(v);
  EXPECT_DOUBLE_EQ(s.mean(), 14.0);
  // Sample variance (16 + 4 + 0 + 36) / 3; its mean's: that over 4.
  EXPECT_NEAR(s.stddev_of_mean(), std::sqrt(56.0 / 3 / 4), 1e-12);
  EXPECT_NEAR(s.relative_pct(), spread({10, 12, 14, 20}), 1e-9);
}

TEST(RunningStats, OneRunHasNoSpread) {
  counting::RunningStats s;
  s.add(5);
  EXPECT_EQ(s.stddev_of_mean(), 0.0);
  EXPECT_EQ(s.relative_pct(), 0.0);
}

TEST(RepeatedRuns, MeansAndSpreadsOfTheReportsLinesNotOfEachUnit) {
  counting::RepeatedRuns runs{counting::RowGroups(Grouping::PerSocket)};
  // Three runs; socket 0's two units sum to 100, 110, 120; socket 1's one unit is steady.
  const std::vector<std::vector<std::uint64_t>> counts{{40, 60, 7}, {50, 60, 7}, {55, 65, 7}};
  std::vector<counting::MetricRow> metrics(1);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::string a = "uncore_imc_0", b = "uncore_imc_1";  // the run's own strings, gone after add()
    std::vector<Row> rows{row(a, 0, counts[i][0]), row(b, 0, counts[i][1]), row(a, 1, counts[i][2])};
    metrics[0].name = "spr_dram_read_bw";
    metrics[0].value = 1.0 + static_cast<double>(i);
    runs.add(rows, metrics, 1'000'000'000ull * (i + 1));
  }
  EXPECT_EQ(runs.runs(), 3u);
  const auto& mean = runs.mean_rows();
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_EQ(mean[0].count, 110u);
  EXPECT_EQ(mean[0].enabled_ns, 2000u);  // two units' times summed, as the line shows them
  EXPECT_EQ(mean[0].pmu, "uncore_imc_0");
  EXPECT_EQ(mean[1].count, 7u);
  const auto pct = runs.spread_pct();
  EXPECT_NEAR(pct[0], spread({100, 110, 120}), 1e-9);
  EXPECT_EQ(pct[1], 0.0);
  EXPECT_DOUBLE_EQ(runs.mean_metrics()[0].value, 2.0);
  EXPECT_DOUBLE_EQ(runs.elapsed().mean(), 2.0);
  EXPECT_NEAR(runs.elapsed().relative_pct(), spread({1, 2, 3}), 1e-9);
}

TEST(RepeatedRuns, RunsThatCountDifferentLinesAreAnError) {
  counting::RepeatedRuns runs{counting::RowGroups(Grouping::PerBox)};
  runs.add({row("uncore_imc_0", 0, 1)}, {}, 1);
  EXPECT_THROW(runs.add({row("uncore_imc_0", 0, 1), row("uncore_imc_1", 0, 1)}, {}, 1), Error);
}

}  // namespace
