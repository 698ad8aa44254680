// pmukit tests -- worked examples for the catalog's metrics: counts, a duration and the value the
// metric must produce, each with where its numbers come from (a guide's perf output, or by hand).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pmukit/metrics/catalog.h"

namespace pmukit::test {

struct MetricCase {
  std::string metric;
  std::map<std::string, double> counts;  // by expression variable
  double duration_ns = 0;
  double expected = 0;  // written from the source's numbers, never from the metric's own formula
  std::string origin;
  std::map<std::string, double> parameters = {};
  // For a metric with a formula per generation (variants): the PMU kind whose variant is meant.
  std::string pmu_kind = {};
  // And the platform ("srf") where variants of one kind differ by platform; "" = the variant that
  // names no platforms of its own.
  std::string platform = {};
};

// NVIDIA Grace Performance Tuning Guide (Grace) examples and hand-computed values for the rest of grace.json.
std::vector<MetricCase> grace_cases();
// Hand-computed values for grace_core.json (the guide's core metrics).
std::vector<MetricCase> grace_core_cases();
// Hand-computed values for tegra410.json (NVIDIA Tegra410 PMU guide gives formulas but no measurements).
std::vector<MetricCase> tegra410_cases();
// Alibaba Yitian 710 PCIe PMU guide and 004 (Yitian PCIe and CMN) and the Intel IMC metrics.
std::vector<MetricCase> other_cases();
// Hand-computed values for amd.json (the Linux perf AMD metrics give formulas, no measurements).
std::vector<MetricCase> amd_cases();
// Hand-computed values for the per-generation variants of perf_intel_uncore.json (perf's
// uncore_frequency, llc_demand_data_read_miss_latency, io_bandwidth_read/write).
std::vector<MetricCase> perf_intel_variant_cases();
// Hand-computed values for the rest of perf_intel_uncore.json's metrics (NUMA, latency by target,
// IO, PMem, IIO), some of them variants by platform (Sierra Forest).
std::vector<MetricCase> perf_intel_more_cases();
// perf's Skylake-SP/Cascade Lake CHA TOR metrics, whose events carry perf's config1 for the CHA
// filter (perf_intel_skx_filter_values_test.cpp).
std::vector<MetricCase> perf_intel_skx_cases();

// The embedded catalog, loaded once for all tests.
const metrics::Catalog& catalog();

// The metric a case is for: the variant of its pmu_kind (and platform), or the metric of its name;
// nullptr if none.
const metrics::Metric* metric_of(const MetricCase& c);

// Evaluates the case and checks the value to 1e-12 relative; returns the value.
double expect_case(const MetricCase& c);

}  // namespace pmukit::test
