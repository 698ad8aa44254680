// Metric: the self-consistency check of a spec and evaluation from counts, duration and parameters.
#include <gtest/gtest.h>

#include <cmath>

#include "pmukit/metrics/metric.h"
#include "pmukit/util/error.h"

using namespace pmukit::metrics;

namespace {

MetricSpec latency_spec() {
  MetricSpec s;
  s.name = "lat";
  s.unit = "ns";
  s.pmu = "nvidia_cmem_latency_pmu_%u";
  s.events = {{"RD_CUM_OUTS", {"rd_cum_outs"}}, {"RD_REQ", {"rd_req"}}, {"CYCLES", {"cycles"}}};
  s.expression = "(RD_CUM_OUTS / RD_REQ) / (CYCLES / DURATION_TIME)";
  s.file = "metrics/test.json";
  return s;
}

MetricSpec cmn_spec() {
  MetricSpec s;
  s.name = "d2d";
  s.unit = "GB/s";
  s.pmu = "arm_cmn_%u";
  s.events = {
      {"TX", {"type=0x105,eventid=0x22,bynodeid=1,nodeid=413", "type=0x105,eventid=0x22,bynodeid=1,nodeid=421"}},
      {"CYCLES", {"dtc_cycles"}}};
  s.parameters = {{"FREQ", 1.8, "GHz", "mesh clock"}};
  s.expression = "32 * TX * FREQ / CYCLES";
  return s;
}

std::string spec_error(MetricSpec s) {
  try {
    Metric m(std::move(s));
  } catch (const pmukit::UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(Metric, EvaluatesWithDurationAsDurationTime) {
  Metric m(latency_spec());
  auto r = m.evaluate({{"RD_CUM_OUTS", 3e9}, {"RD_REQ", 1e7}, {"CYCLES", 2e9}}, 1e9);
  ASSERT_TRUE(r.valid) << r.problem;
  EXPECT_DOUBLE_EQ(r.value, 150.0);  // 300 cycles at 2 GHz
  EXPECT_TRUE(m.uses_duration());
  // Counts the metric does not read are ignored: a caller may pass all it counted.
  r = m.evaluate({{"RD_CUM_OUTS", 3e9}, {"RD_REQ", 1e7}, {"CYCLES", 2e9}, {"OTHER", 5}}, 5e8);
  EXPECT_DOUBLE_EQ(r.value, 75.0);
}

TEST(Metric, ZeroRequestsGiveAnInvalidValueWithTheReason) {
  Metric m(latency_spec());
  auto r = m.evaluate({{"RD_CUM_OUTS", 0}, {"RD_REQ", 0}, {"CYCLES", 2e9}}, 1e9);
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(std::isnan(r.value));
  EXPECT_EQ(r.problem, "division by zero: 'RD_REQ' is 0");
  // A zero-length measurement is no better.
  r = m.evaluate({{"RD_CUM_OUTS", 1}, {"RD_REQ", 1}, {"CYCLES", 2e9}}, 0);
  EXPECT_FALSE(r.valid);
}

TEST(Metric, MissingCountNamesTheVariableAndItsEvent) {
  Metric m(latency_spec());
  try {
    m.evaluate({{"RD_CUM_OUTS", 1}, {"CYCLES", 1}}, 1);
    FAIL();
  } catch (const pmukit::Error& e) {
    EXPECT_STREQ(e.what(), "metrics/test.json: metric 'lat': no count for 'RD_REQ' (rd_req on "
                           "nvidia_cmem_latency_pmu_%u)");
  }
  EXPECT_THROW(m.evaluate({{"RD_CUM_OUTS", 1}, {"RD_REQ", 1}, {"CYCLES", 1}}, -1), pmukit::Error);
  EXPECT_THROW(m.evaluate({{"RD_CUM_OUTS", 1}, {"RD_REQ", 1}, {"CYCLES", 1}}, NAN), pmukit::Error);
}

TEST(Metric, ParametersHaveDefaultsAndCanBeOverridden) {
  Metric m(cmn_spec());
  std::map<std::string, double> counts{{"TX", 1e9}, {"CYCLES", 1.8e10}};
  EXPECT_DOUBLE_EQ(m.evaluate(counts, 0).value, 3.2);
  EXPECT_DOUBLE_EQ(m.evaluate(counts, 0, {{"FREQ", 2.7}}).value, 4.8);
  try {
    m.evaluate(counts, 0, {{"FREQUENCY", 2.0}});
    FAIL();
  } catch (const pmukit::UsageError& e) {
    EXPECT_STREQ(e.what(), "metric 'd2d': unknown parameter 'FREQUENCY' (it has FREQ)");
  }
  EXPECT_THROW(Metric(latency_spec()).evaluate({{"RD_CUM_OUTS", 1}, {"RD_REQ", 1}, {"CYCLES", 1}}, 1, {{"FREQ", 1}}),
               pmukit::UsageError);
}

TEST(Metric, SumsTheCountsOfAVariablesEvents) {
  Metric m(cmn_spec());
  auto sums = m.sum_event_counts({{"TX", {1.5e8, 2.5e8}}, {"CYCLES", {9e9}}});
  EXPECT_EQ(sums, (std::map<std::string, double>{{"CYCLES", 9e9}, {"TX", 4e8}}));
  EXPECT_DOUBLE_EQ(m.evaluate(sums, 0).value, 32 * 4e8 * 1.8 / 9e9);
  EXPECT_THROW(m.sum_event_counts({{"TX", {1.0}}, {"CYCLES", {9e9}}}),
               pmukit::Error);                                            // two events, one count
  EXPECT_THROW(m.sum_event_counts({{"TX", {1.0, 2.0}}}), pmukit::Error);  // no CYCLES
}

TEST(Metric, AppliesToThePmusItsPatternMatches) {
  Metric m(latency_spec());
  EXPECT_TRUE(m.applies_to("nvidia_cmem_latency_pmu_0"));
  EXPECT_TRUE(m.applies_to("nvidia_cmem_latency_pmu_12"));
  EXPECT_FALSE(m.applies_to("nvidia_cmem_latency_pmu_"));
  EXPECT_FALSE(m.applies_to("nvidia_scf_pmu_0"));
}

TEST(Metric, EveryExpressionVariableMustBeBound) {
  auto s = latency_spec();
  s.expression = "(RD_CUM_OUTS / RD_REQS) / (CYCLES / DURATION_TIME)";
  s.events.pop_back();
  s.events.push_back({"CYCLES", {"cycles"}});
  EXPECT_EQ(spec_error(s), "metrics/test.json: metric 'lat': expression '(RD_CUM_OUTS / RD_REQS) / (CYCLES / "
                           "DURATION_TIME)': 'RD_REQS' is not DURATION_TIME, duration_time, an event variable or a "
                           "parameter");
}

TEST(Metric, EveryBindingMustBeUsed) {
  auto s = latency_spec();
  s.events.push_back({"WR_REQ", {"wr_req"}});
  EXPECT_EQ(spec_error(s), "metrics/test.json: metric 'lat': 'WR_REQ' is not used by the expression "
                           "'(RD_CUM_OUTS / RD_REQ) / (CYCLES / DURATION_TIME)'");
  s = cmn_spec();
  s.expression = "32 * TX * 1.8 / CYCLES";
  EXPECT_EQ(spec_error(s), "metric 'd2d': 'FREQ' is not used by the expression '32 * TX * 1.8 / CYCLES'");
}

TEST(Metric, NamesAreBoundOnceAndDurationTimeIsReserved) {
  auto s = cmn_spec();
  s.parameters.push_back({"TX", 1, "GHz", "clash"});
  EXPECT_EQ(spec_error(s), "metric 'd2d': 'TX' is defined twice");
  s = latency_spec();
  s.events.push_back({"DURATION_TIME", {"cycles"}});
  EXPECT_EQ(spec_error(s), "metrics/test.json: metric 'lat': event variable 'DURATION_TIME': the "
                           "name is reserved for the measurement time");
  s = latency_spec();
  s.events[0].events.clear();
  EXPECT_EQ(spec_error(s), "metrics/test.json: metric 'lat': event variable 'RD_CUM_OUTS' has no event");
  s = cmn_spec();
  s.parameters[0].default_value = NAN;
  EXPECT_EQ(spec_error(s), "metric 'd2d': parameter 'FREQ' has no finite default");
  s = cmn_spec();
  s.events[1].variable = "2CYCLES";
  EXPECT_EQ(spec_error(s), "metric 'd2d': event variable '2CYCLES' is not a name");
}

TEST(Metric, ExpressionErrorsNameTheFileAndMetric) {
  auto s = latency_spec();
  s.expression = "RD_CUM_OUTS*/RD_REQ";
  EXPECT_EQ(spec_error(s), "metrics/test.json: metric 'lat': expression 'RD_CUM_OUTS*/RD_REQ': "
                           "unexpected '/' at column 13");
  s = latency_spec();
  s.pmu = "nvidia_cmem_latency_pmu_%d";
  EXPECT_EQ(spec_error(s), "metrics/test.json: metric 'lat': pmu 'nvidia_cmem_latency_pmu_%d': '%d' is not %u or %x");
}

// source_count(X) must name an event variable; #num_packages is always known; a binding read only
// through source_count() is used.
TEST(Metric, SourceCountNamesAnEventVariable) {
  MetricSpec s = latency_spec();
  s.expression = "CYCLES / (source_count(CYCLES) * #num_packages) + RD_CUM_OUTS / RD_REQ";
  Metric m(s);
  ASSERT_EQ(m.source_counts().size(), 1u);
  EXPECT_EQ(m.source_counts()[0].first, "source_count(CYCLES)");
  EXPECT_EQ(m.source_counts()[0].second, "CYCLES");
  EXPECT_TRUE(m.uses_num_packages());
  auto e = m.evaluate(
      {{"CYCLES", 1200}, {"source_count(CYCLES)", 6}, {"#num_packages", 2}, {"RD_CUM_OUTS", 10}, {"RD_REQ", 5}}, 1);
  EXPECT_DOUBLE_EQ(e.value, 102);
  s.expression = "RD_CUM_OUTS / RD_REQ / source_count(NOPE) + CYCLES";
  EXPECT_NE(spec_error(s).find("'source_count(NOPE)' is not"), std::string::npos) << spec_error(s);
  s.expression = "RD_CUM_OUTS / RD_REQ / source_count(CYCLES)";
  EXPECT_EQ(spec_error(s).find("not used"), std::string::npos) << spec_error(s);
}
