// counting/prometheus.h: metric names in base units, content negotiation, and the text format and
// OpenMetrics of a set of series (https://prometheus.io/docs/instrumenting/exposition_formats/).
#include <gtest/gtest.h>

#include <string>

#include "pmukit/counting/prometheus.h"

using namespace pmukit;
using counting::Exposition;

namespace {

TEST(Prometheus, MetricFamiliesAreNamedInBaseUnits) {
  auto bw = counting::metric_family("spr_dram_read_bw", "GB/s");
  EXPECT_EQ(bw.name, "pmukit_spr_dram_read_bw_bytes_per_second");
  EXPECT_EQ(bw.unit, "bytes_per_second");
  EXPECT_EQ(bw.factor, 1e9);
  auto pct = counting::metric_family("util", "%");
  EXPECT_EQ(pct.name, "pmukit_util_ratio");
  EXPECT_EQ(pct.factor, 0.01);
  auto rpc = counting::metric_family("occupancy", "requests/cycle");
  EXPECT_EQ(rpc.name, "pmukit_occupancy_requests_per_cycle");
  EXPECT_EQ(rpc.unit, "");
  EXPECT_EQ(counting::metric_family("x-y", "").name, "pmukit_x_y");
}

// One name on every platform: the metric's export_as, in the same base unit.
TEST(Prometheus, MetricsWithANeutralNameAreExportedUnderIt) {
  for (auto metric : {"dram_read_bw", "amd_dram_read_bw", "scf_local_mem_read_bw"}) {
    auto f = counting::metric_family(metric, "GB/s", "dram_read");
    EXPECT_EQ(f.name, "pmukit_dram_read_bytes_per_second") << metric;
    EXPECT_EQ(f.factor, 1e9);
  }
}

TEST(Prometheus, OpenMetricsOnlyWhenAcceptedAtLeastAsMuchAsText) {
  EXPECT_EQ(counting::negotiate(""), Exposition::Prometheus);
  EXPECT_EQ(counting::negotiate("application/openmetrics-text;version=1.0.0;q=0.5,text/plain;q=0.4"),
            Exposition::OpenMetrics);
  EXPECT_EQ(counting::negotiate("application/openmetrics-text;q=0.3,text/plain;q=0.4"), Exposition::Prometheus);
  EXPECT_EQ(counting::negotiate("text/plain"), Exposition::Prometheus);
}

counting::SeriesSnapshot snapshot() {
  counting::SeriesSnapshot s;
  s.reads = 3;
  s.timestamp_ms = 1700000000123;
  s.window_s = 2;
  s.counters.push_back({true, "cas_count_read", "uncore_imc_0", "", 0, 640});
  s.counters.push_back({false, "clockticks", "uncore_cha_\"1\"", "", -1, 5});
  s.gauges.push_back(
      {"pmukit_bw_bytes_per_second", "bytes_per_second", "Read bandwidth", "uncore_imc", "spr", 1, 1.5e9});
  s.backends.push_back({"uncore_imc_0", "direct"});
  s.version = "1.2.3";
  s.platform = "spr";
  return s;
}

TEST(Prometheus, TheTextFormatHasHelpTypeAndEscapedLabels) {
  const std::string text = counting::render(snapshot(), Exposition::Prometheus, false);
  EXPECT_NE(text.find("# TYPE pmukit_uncore_bytes_total counter\n"
                      "pmukit_uncore_bytes_total{socket=\"0\",pmu=\"uncore_imc_0\",event=\"cas_count_read\"} 640\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pmukit_uncore_events_total{pmu=\"uncore_cha_\\\"1\\\"\",event=\"clockticks\"} 5\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE pmukit_bw_bytes_per_second gauge\n"
                      "pmukit_bw_bytes_per_second{socket=\"1\",pmu=\"uncore_imc\",platform=\"spr\"} 1500000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("# TYPE pmukit_backend_info gauge\npmukit_backend_info{pmu=\"uncore_imc_0\",backend=\"direct\"} 1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("pmukit_reads_total 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE pmukit_build_info gauge\npmukit_build_info{version=\"1.2.3\",platform=\"spr\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("# EOF"), std::string::npos);
  EXPECT_EQ(text.find("# UNIT"), std::string::npos);
}

TEST(Prometheus, AMetricBoundPerIioStackHasTheStackLabel) {
  counting::SeriesSnapshot s = snapshot();
  s.gauges.push_back({"pmukit_pcie_to_device_bytes_per_second", "bytes_per_second", "PCIe", "uncore_iio_2", "spr", 0,
                      2.16e10, "PCIe0"});
  const std::string text = counting::render(s, Exposition::Prometheus, false);
  EXPECT_NE(text.find("pmukit_pcie_to_device_bytes_per_second{socket=\"0\",pmu=\"uncore_iio_2\",stack=\"PCIe0\","
                      "platform=\"spr\"} 21600000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pmukit_bw_bytes_per_second{socket=\"1\",pmu=\"uncore_imc\",platform=\"spr\"} 1500000000\n"),
            std::string::npos)
      << text;
}

TEST(Prometheus, OpenMetricsNamesFamiliesWithUnitsAndEnds) {
  const std::string text = counting::render(snapshot(), Exposition::OpenMetrics, true);
  EXPECT_NE(text.find("# TYPE pmukit_uncore_bytes counter\n# UNIT pmukit_uncore_bytes bytes\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE pmukit_backend info\n"), std::string::npos) << text;
  EXPECT_NE(text.find("pmukit_reads_total 3 1700000000.123\n"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("# EOF\n"));
}

}  // namespace

TEST(Prometheus, ANeutralMetricNoPmuCountsIsPublishedWithTheReason) {
  auto s = snapshot();
  EXPECT_EQ(counting::render(s, Exposition::Prometheus, false).find("pmukit_metric_unavailable"), std::string::npos);
  s.unavailable.push_back({"dram_read", "no PMU here counts it (dram_read_bw on \"uncore_imc\")"});
  const std::string text = counting::render(s, Exposition::Prometheus, false);
  EXPECT_NE(
      text.find("# TYPE pmukit_metric_unavailable_info gauge\npmukit_metric_unavailable_info{metric=\"dram_read\","
                "platform=\"spr\",reason=\"no PMU here counts it (dram_read_bw on \\\"uncore_imc\\\")\"} 1\n"),
      std::string::npos)
      << text;
}
