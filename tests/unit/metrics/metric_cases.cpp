// Runs the worked examples of every family and checks each catalog metric has at least one.
#include "metric_cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace pmukit::test {

const metrics::Catalog& catalog() {
  static const metrics::Catalog c = metrics::Catalog::embedded();
  return c;
}

const metrics::Metric* metric_of(const MetricCase& c) {
  if (c.pmu_kind.empty()) return catalog().find(c.metric);
  for (const auto* v : catalog().variants(c.metric)) {
    const auto& kinds = v->spec().pmu_kinds;
    const bool platform = c.platform.empty() ? v->spec().platforms.empty() : v->for_platform(c.platform);
    if (std::find(kinds.begin(), kinds.end(), c.pmu_kind) != kinds.end() && platform) return v;
  }
  return nullptr;
}

double expect_case(const MetricCase& c) {
  SCOPED_TRACE(c.metric + ": " + c.origin);
  const metrics::Metric* m = metric_of(c);
  if (!m) {
    ADD_FAILURE() << "no metric " << c.metric;
    return NAN;
  }
  auto r = m->evaluate(c.counts, c.duration_ns, c.parameters);
  EXPECT_TRUE(r.valid) << r.problem;
  EXPECT_NEAR(r.value, c.expected, std::abs(c.expected) * 1e-12) << m->spec().expression;
  return r.value;
}

}  // namespace pmukit::test

using pmukit::test::MetricCase;

namespace {

std::vector<MetricCase> all_cases() {
  std::vector<MetricCase> all = pmukit::test::grace_cases();
  for (auto& c : pmukit::test::tegra410_cases()) all.push_back(c);
  for (auto& c : pmukit::test::grace_core_cases()) all.push_back(c);
  for (auto& c : pmukit::test::other_cases()) all.push_back(c);
  for (auto& c : pmukit::test::amd_cases()) all.push_back(c);
  for (auto& c : pmukit::test::perf_intel_variant_cases()) all.push_back(c);
  for (auto& c : pmukit::test::perf_intel_more_cases()) all.push_back(c);
  for (auto& c : pmukit::test::perf_intel_skx_cases()) all.push_back(c);
  return all;
}

}  // namespace

TEST(MetricValues, EveryWorkedExampleEvaluatesToItsValue) {
  for (const auto& c : all_cases()) pmukit::test::expect_case(c);
}

// A metric added to platforms/metrics/ without a worked example fails here.
TEST(MetricValues, EveryCatalogMetricHasAWorkedExample) {
  std::set<std::string> covered;
  std::set<const pmukit::metrics::Metric*> variants_covered;  // each generation's formula
  for (const auto& c : all_cases()) covered.insert(c.metric), variants_covered.insert(pmukit::test::metric_of(c));
  for (const auto& m : pmukit::test::catalog().metrics()) {
    EXPECT_TRUE(covered.count(m.name())) << m.name() << " (" << m.spec().file << ") has no worked example";
    if (pmukit::test::catalog().variants(m.name()).size() > 1) {
      EXPECT_TRUE(variants_covered.count(&m)) << m.name() << " for " << m.spec().pmu_kinds.front() << " has none";
    }
  }
  for (const auto& name : covered) EXPECT_NE(pmukit::test::catalog().find(name), nullptr) << name;
}

// Tripling any one non-zero count must change the value: no example passes because its metric
// ignores one of the events it binds.
TEST(MetricValues, EveryExampleDependsOnEachOfItsCounts) {
  for (const auto& c : all_cases()) {
    ASSERT_NE(pmukit::test::metric_of(c), nullptr) << c.metric;
    const auto& m = *pmukit::test::metric_of(c);
    for (const auto& [var, count] : c.counts) {
      if (count == 0) continue;
      auto changed = c.counts;
      changed[var] = count * 3;
      auto r = m.evaluate(changed, c.duration_ns, c.parameters);
      EXPECT_NE(r.value, c.expected) << c.metric << ": the value does not depend on " << var;
    }
  }
}
