// perf's Skylake-SP/Cascade Lake CHA TOR metrics (issue 35 point 1): numa_reads_addressed_to_*_dram
// and llc_data_read_demand_plus_prefetch_miss_latency*, whose events carry perf's config1 for the CHA
// filter. Every value is worked out by hand from perf's MetricExpr (intel/perfmon 6dadedf
// CLX/metrics/perf/cascadelakex_metrics_perf.json); the events are perf's UNC_CHA_TOR_INSERTS.IA_MISS /
// UNC_CHA_TOR_OCCUPANCY.IA_MISS (CLX/events: EventCode 0x35 / 0x36, UMask 0x21) with its config1.
#include <gtest/gtest.h>

#include "metric_cases.h"

namespace pmukit::test {

namespace {

const std::string kIns = "UNC_CHA_TOR_INSERTS_IA_MISS_CONFIG1_";
const std::string kOcc = "UNC_CHA_TOR_OCCUPANCY_IA_MISS_CONFIG1_";

// TOR inserts of local (config1=0x40432) and remote (0x40431) LLC read misses.
std::map<std::string, double> numa(double local, double remote) {
  return {{kIns + "40432", local}, {kIns + "40431", remote}};
}

// TOR occupancy and inserts of one config1, the CHA clock, the CHAs that counted it and the sockets.
std::map<std::string, double> tor(const std::string& config1, double occupancy, double inserts, double clockticks,
                                  double chas) {
  return {{kOcc + config1, occupancy},
          {kIns + config1, inserts},
          {"UNC_CHA_CLOCKTICKS", clockticks},
          {"source_count(UNC_CHA_CLOCKTICKS)", chas},
          {"#num_packages", 2}};
}

}  // namespace

std::vector<MetricCase> perf_intel_skx_cases() {
  return {
      {"numa_reads_addressed_to_local_dram",
       numa(3e8, 1e8),
       1e9,
       75,
       "by hand: 3e8 local of 4e8 misses",
       {},
       "intel_skx_cha",
       "skx"},
      {"numa_reads_addressed_to_remote_dram",
       numa(3e8, 1e8),
       1e9,
       25,
       "by hand: 1e8 remote of 4e8 misses",
       {},
       "intel_skx_cha",
       "skx"},
      {"llc_data_read_demand_plus_prefetch_miss_latency", tor("40433", 6e10, 4e8, 1.12e11, 28), 1e9, 75,
       "by hand: 150 cycles a miss; 56 CHAs tick 1.12e11 in 1 s (2 GHz): 75 ns"},
      {"llc_data_read_demand_plus_prefetch_miss_latency_for_local_requests", tor("40432", 2e10, 2e8, 1.12e11, 28), 2e9,
       100, "by hand: 100 cycles a miss; 56 CHAs tick 1.12e11 in 2 s (1 GHz): 100 ns"},
      {"llc_data_read_demand_plus_prefetch_miss_latency_for_remote_requests", tor("40431", 4.8e10, 2e8, 1.6e11, 40),
       1e9, 120, "by hand: 240 cycles a miss; 80 CHAs tick 1.6e11 in 1 s (2 GHz): 120 ns"},
  };
}

}  // namespace pmukit::test

using pmukit::test::catalog;

// The Skylake-SP/Cascade Lake variants bind perf's events with perf's config1, on the SKX CHA only;
// the other generations keep their own formulas, and the metrics are no longer listed as uncounted.
TEST(PerfIntelSkx, TorMetricsBindPerfsEventsWithTheirConfig1) {
  const std::map<std::string, std::string> config1 = {
      {"numa_reads_addressed_to_local_dram", "0x40432"},
      {"numa_reads_addressed_to_remote_dram", "0x40431"},
      {"llc_data_read_demand_plus_prefetch_miss_latency", "0x40433"},
      {"llc_data_read_demand_plus_prefetch_miss_latency_for_local_requests", "0x40432"},
      {"llc_data_read_demand_plus_prefetch_miss_latency_for_remote_requests", "0x40431"}};
  for (const auto& [name, value] : config1) {
    EXPECT_EQ(catalog().find_unavailable(name, "skx"), nullptr) << name;
    const pmukit::metrics::Metric* skx = nullptr;
    for (const auto* m : catalog().variants(name))
      if (m->spec().pmu_kinds == std::vector<std::string>{"intel_skx_cha"}) skx = m;
    ASSERT_NE(skx, nullptr) << name;
    EXPECT_TRUE(skx->for_platform("skx")) << name;
    std::size_t with_config1 = 0;
    for (const auto& b : skx->events())
      for (const auto& ev : b.events)
        if (ev.find("config1=") != std::string::npos) {
          EXPECT_NE(ev.find("umask=0x21"), std::string::npos) << name << ": " << ev;
          with_config1 += ev.find("config1=" + value) != std::string::npos;
        }
    EXPECT_GE(with_config1, 1u) << name;
  }
}
