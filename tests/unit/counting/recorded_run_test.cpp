// counting/recorded_run.h: a run recorded as pmu-raw -j lines read back into events and metrics
// with a series per socket or unit, the errors that name the line, and the statistics of a series.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "pmukit/counting/recorded_run.h"
#include "pmukit/util/error.h"

using namespace pmukit;
using counting::RecordKind;

namespace {

counting::RecordedRun read(const std::string& text) {
  std::istringstream in(text);
  return counting::read_recorded_run(in, "run.json");
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RecordedRun, IntervalsBecomeRatesPerSeriesInNumberOrder) {
  auto run =
      read("{\"interval\":1.0,\"socket\":\"S1\",\"counter-value\":\"300.000000\",\"unit\":\"\",\"event\":\"e/x/\","
           "\"backend\":\"direct\"}\n"
           "{\"interval\":1.0,\"socket\":\"S0\",\"counter-value\":\"100.000000\",\"unit\":\"\",\"event\":\"e/x/\"}\n"
           "\n"
           "{\"interval\":2.0,\"socket\":\"S0\",\"counter-value\":\"<not counted>\",\"unit\":\"\",\"event\":\"e/x/\","
           "\"pcnt-running\":50.0}\n"
           "{\"interval\":2.0,\"socket\":\"S1\",\"counter-value\":\"200.000000\",\"unit\":\"\",\"event\":\"e/x/\"}\n"
           "{\"interval\":2.0,\"metric-value\":\"1.500\",\"metric-unit\":\"GB/s\",\"metric\":\"bw (uncore_imc)\"}\n");
  EXPECT_TRUE(run.intervals);
  EXPECT_EQ(run.records, 5u);
  EXPECT_EQ(run.times, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(run.count(RecordKind::Event), 1u);
  EXPECT_EQ(run.count(RecordKind::Metric), 1u);
  const auto& e = run.charts[0];
  ASSERT_EQ(e.series.size(), 2u);
  EXPECT_EQ(e.series[0].label, "S0");
  EXPECT_EQ(e.series[0].samples[0].y, 100.0);  // per second of its interval
  EXPECT_TRUE(std::isnan(e.series[0].samples[1].y));
  EXPECT_EQ(e.series[0].min_running_pct, 50.0);
  EXPECT_EQ(e.series[1].samples[1].y, 200.0);
  EXPECT_EQ(e.series[1].backends, (std::set<std::string>{"direct"}));
  EXPECT_EQ(run.charts[1].name, "bw");
  EXPECT_EQ(run.charts[1].series[0].label, "uncore_imc");
  EXPECT_EQ(run.grouping, (std::set<std::string>{"socket"}));
}

TEST(RecordedRun, ABadLineIsNamedByFileAndNumber) {
  EXPECT_EQ(error_of("{\"event\":\"x\"}\n"), "run.json:1: an \"event\" record without \"counter-value\"");
  EXPECT_EQ(error_of("{\"interval\":2,\"counter-value\":\"1\",\"event\":\"x\"}\n"
                     "{\"interval\":1,\"counter-value\":\"1\",\"event\":\"x\"}\n"),
            "run.json:2: interval 1 s comes after 2 s (records out of time order: two runs in one file?)");
  EXPECT_EQ(error_of("# comment only\n"), "run.json: no records (expected pmu-raw -j output)");
}

TEST(RecordedRun, StatisticsLeaveGapsOut) {
  auto s = counting::stats_of(std::vector<double>{3, NAN, 1, 2, 10});
  EXPECT_EQ(s.n, 4u);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.median, 2.5);
  EXPECT_EQ(s.max, 10);
  EXPECT_TRUE(std::isnan(counting::stats_of(std::vector<double>{}).median));
}

TEST(RecordedRun, TheSumSeriesAddsEverySeriesWhereAllHaveAValue) {
  counting::RecordedChart c;
  c.series.push_back({"S0", {{1, 0, 5, false}, {2, 0, 7, false}}, {}, 100});
  c.series.push_back({"S1", {{1, 0, 1, false}, {2, 0, NAN, false}}, {}, 100});
  auto sum = counting::sum_series(c);
  EXPECT_EQ(sum.label, "sum");
  ASSERT_EQ(sum.samples.size(), 2u);
  EXPECT_EQ(sum.samples[0].y, 6);
  EXPECT_TRUE(std::isnan(sum.samples[1].y));
  EXPECT_EQ(counting::stats_of(sum).n, 1u);
}

}  // namespace
