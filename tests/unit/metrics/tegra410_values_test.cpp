// Tegra410 metrics: NVIDIA Tegra410 PMU guide gives the formulas but no measurements, so every value here is worked
// out by hand from round counts (the comment beside each says how).
#include <gtest/gtest.h>

#include <cmath>

#include "metric_cases.h"

namespace pmukit::test {

std::vector<MetricCase> tegra410_cases() {
  const std::string hand = "by hand: ";
  return {
      // UCF: bytes over nanoseconds, requests over cycles.
      {"t410_ucf_slc_read_bw", {{"SLC_BYTES_RD", 6.4e9}}, 1e9, 6.4, hand + "6.4e9 B in 1 s"},
      {"t410_ucf_slc_write_bw", {{"SLC_BYTES_WR", 1.6e9}}, 4e8, 4.0, hand + "1.6e9 B in 0.4 s"},
      {"t410_ucf_mem_read_bw", {{"MEM_BYTES_RD", 2.5e10}}, 1e9, 25.0, hand + "2.5e10 B in 1 s"},
      {"t410_ucf_mem_write_bw", {{"MEM_BYTES_WR", 1.2e10}}, 1e9, 12.0, hand + "1.2e10 B in 1 s"},
      {"t410_ucf_slc_read_req_rate", {{"SLC_ACCESS_RD", 3e8}, {"CYCLES", 1e9}}, 1e9, 0.3, hand + "3e8 / 1e9"},
      {"t410_ucf_slc_write_req_rate", {{"SLC_ACCESS_WR", 1e8}, {"CYCLES", 1e9}}, 1e9, 0.1, hand + "1e8 / 1e9"},
      {"t410_ucf_mem_read_req_rate", {{"MEM_ACCESS_RD", 4e8}, {"CYCLES", 1e9}}, 1e9, 0.4, hand + "4e8 / 1e9"},
      {"t410_ucf_mem_write_req_rate", {{"MEM_ACCESS_WR", 2.5e8}, {"CYCLES", 1e9}}, 1e9, 0.25, hand + "2.5e8 / 1e9"},

      // PCIE (per root complex).
      {"t410_pcie_read_bw", {{"RD_BYTES", 1.6e10}}, 1e9, 16.0, hand + "1.6e10 B in 1 s"},
      {"t410_pcie_write_bw", {{"WR_BYTES", 8e9}}, 1e9, 8.0, hand + "8e9 B in 1 s"},
      {"t410_pcie_read_req_rate", {{"RD_REQ", 2.5e8}, {"CYCLES", 1e9}}, 1e9, 0.25, hand + "2.5e8 / 1e9"},
      {"t410_pcie_write_req_rate", {{"WR_REQ", 1.25e8}, {"CYCLES", 1e9}}, 1e9, 0.125, hand + "1.25e8 / 1e9"},
      {"t410_pcie_frequency", {{"CYCLES", 1.6e9}}, 1e9, 1.6, hand + "1.6e9 cycles in 1 s"},
      {"t410_pcie_read_latency_cycles", {{"RD_CUM_OUTS", 4e10}, {"RD_REQ", 1e8}}, 1e9, 400.0, hand + "4e10 / 1e8"},
      {"t410_pcie_read_latency",
       {{"RD_CUM_OUTS", 4e10}, {"RD_REQ", 1e8}, {"CYCLES", 1.6e9}},
       1e9,
       250.0,
       hand + "400 cycles at 1.6 GHz"},

      // PCIE-TGT.
      {"t410_pcie_tgt_read_bw", {{"RD_BYTES", 2e9}}, 1e9, 2.0, hand + "2e9 B in 1 s"},
      {"t410_pcie_tgt_write_bw", {{"WR_BYTES", 5e8}}, 1e9, 0.5, hand + "5e8 B in 1 s"},
      {"t410_pcie_tgt_read_req_rate", {{"RD_REQ", 1e7}, {"CYCLES", 1e9}}, 1e9, 0.01, hand + "1e7 / 1e9"},
      {"t410_pcie_tgt_write_req_rate", {{"WR_REQ", 5e6}, {"CYCLES", 1e9}}, 1e9, 0.005, hand + "5e6 / 1e9"},

      // CMEM latency; RD_REQ is 32 bytes per request.
      {"t410_cmem_frequency", {{"CYCLES", 1.2e9}}, 1e9, 1.2, hand + "1.2e9 cycles in 1 s"},
      {"t410_cmem_read_latency_cycles", {{"RD_CUM_OUTS", 1.8e10}, {"RD_REQ", 1e8}}, 1e9, 180.0, hand + "1.8e10 / 1e8"},
      {"t410_cmem_read_latency",
       {{"RD_CUM_OUTS", 1.8e10}, {"RD_REQ", 1e8}, {"CYCLES", 1.2e9}},
       1e9,
       150.0,
       hand + "180 cycles at 1.2 GHz"},
      {"t410_cmem_read_bw", {{"RD_REQ", 1e8}}, 1e9, 3.2, hand + "1e8 requests x 32 B in 1 s"},

      // NVLink-C2C at 2 GHz.
      {"t410_nvlink_c2c_frequency", {{"CYCLES", 2e9}}, 1e9, 2.0, hand + "2e9 cycles in 1 s"},
      {"t410_nvlink_c2c_in_rd_latency_cycles",
       {{"IN_RD_CUM_OUTS", 1e10}, {"IN_RD_REQ", 2e7}},
       1e9,
       500.0,
       hand + "1e10 / 2e7"},
      {"t410_nvlink_c2c_in_rd_latency",
       {{"IN_RD_CUM_OUTS", 1e10}, {"IN_RD_REQ", 2e7}, {"CYCLES", 2e9}},
       1e9,
       250.0,
       hand + "500 cycles at 2 GHz"},
      {"t410_nvlink_c2c_in_wr_latency_cycles",
       {{"IN_WR_CUM_OUTS", 6e9}, {"IN_WR_REQ", 2e7}},
       1e9,
       300.0,
       hand + "6e9 / 2e7"},
      {"t410_nvlink_c2c_in_wr_latency",
       {{"IN_WR_CUM_OUTS", 6e9}, {"IN_WR_REQ", 2e7}, {"CYCLES", 2e9}},
       1e9,
       150.0,
       hand + "300 cycles at 2 GHz"},
      {"t410_nvlink_c2c_out_rd_latency_cycles",
       {{"OUT_RD_CUM_OUTS", 8e9}, {"OUT_RD_REQ", 1e7}},
       1e9,
       800.0,
       hand + "8e9 / 1e7"},
      {"t410_nvlink_c2c_out_rd_latency",
       {{"OUT_RD_CUM_OUTS", 8e9}, {"OUT_RD_REQ", 1e7}, {"CYCLES", 2e9}},
       1e9,
       400.0,
       hand + "800 cycles at 2 GHz"},
      {"t410_nvlink_c2c_out_wr_latency_cycles",
       {{"OUT_WR_CUM_OUTS", 2e9}, {"OUT_WR_REQ", 1e7}},
       1e9,
       200.0,
       hand + "2e9 / 1e7"},
      {"t410_nvlink_c2c_out_wr_latency",
       {{"OUT_WR_CUM_OUTS", 2e9}, {"OUT_WR_REQ", 1e7}, {"CYCLES", 2e9}},
       1e9,
       100.0,
       hand + "200 cycles at 2 GHz"},

      // NV-CLink at 1.25 GHz.
      {"t410_nvclink_frequency", {{"CYCLES", 1.25e9}}, 1e9, 1.25, hand + "1.25e9 cycles in 1 s"},
      {"t410_nvclink_in_rd_latency_cycles",
       {{"IN_RD_CUM_OUTS", 5e9}, {"IN_RD_REQ", 1e7}},
       1e9,
       500.0,
       hand + "5e9 / 1e7"},
      {"t410_nvclink_in_rd_latency",
       {{"IN_RD_CUM_OUTS", 5e9}, {"IN_RD_REQ", 1e7}, {"CYCLES", 1.25e9}},
       1e9,
       400.0,
       hand + "500 cycles at 1.25 GHz"},
      {"t410_nvclink_out_rd_latency_cycles",
       {{"OUT_RD_CUM_OUTS", 2.5e9}, {"OUT_RD_REQ", 1e7}},
       1e9,
       250.0,
       hand + "2.5e9 / 1e7"},
      {"t410_nvclink_out_rd_latency",
       {{"OUT_RD_CUM_OUTS", 2.5e9}, {"OUT_RD_REQ", 1e7}, {"CYCLES", 1.25e9}},
       1e9,
       200.0,
       hand + "250 cycles at 1.25 GHz"},

      // NV-DLink at 1.5 GHz.
      {"t410_nvdlink_frequency", {{"CYCLES", 1.5e9}}, 1e9, 1.5, hand + "1.5e9 cycles in 1 s"},
      {"t410_nvdlink_in_rd_latency_cycles",
       {{"IN_RD_CUM_OUTS", 9e9}, {"IN_RD_REQ", 1e7}},
       1e9,
       900.0,
       hand + "9e9 / 1e7"},
      {"t410_nvdlink_in_rd_latency",
       {{"IN_RD_CUM_OUTS", 9e9}, {"IN_RD_REQ", 1e7}, {"CYCLES", 1.5e9}},
       1e9,
       600.0,
       hand + "900 cycles at 1.5 GHz"},
  };
}

}  // namespace pmukit::test

using pmukit::test::catalog;

// The guide defines AVERAGE_LATENCY_IN_NS = AVG_LATENCY_IN_CYCLES / FREQ_IN_GHZ; the catalog writes
// it out in one formula. Check the identity holds for every PMU that has all three metrics.
TEST(Tegra410, NanosecondLatencyIsCycleLatencyOverFrequency) {
  struct Triple {
    const char *freq, *cycles, *ns, *outs, *req;
  };
  const Triple triples[] = {
      {"t410_pcie_frequency", "t410_pcie_read_latency_cycles", "t410_pcie_read_latency", "RD_CUM_OUTS", "RD_REQ"},
      {"t410_cmem_frequency", "t410_cmem_read_latency_cycles", "t410_cmem_read_latency", "RD_CUM_OUTS", "RD_REQ"},
      {"t410_nvlink_c2c_frequency", "t410_nvlink_c2c_out_wr_latency_cycles", "t410_nvlink_c2c_out_wr_latency",
       "OUT_WR_CUM_OUTS", "OUT_WR_REQ"},
      {"t410_nvclink_frequency", "t410_nvclink_out_rd_latency_cycles", "t410_nvclink_out_rd_latency", "OUT_RD_CUM_OUTS",
       "OUT_RD_REQ"},
      {"t410_nvdlink_frequency", "t410_nvdlink_in_rd_latency_cycles", "t410_nvdlink_in_rd_latency", "IN_RD_CUM_OUTS",
       "IN_RD_REQ"},
  };
  const double ns = 987654321;
  std::map<std::string, double> counts;
  for (const auto& t : triples) {
    counts = {{"CYCLES", 1234567891}, {t.outs, 55555555555}, {t.req, 77777777}};
    double ghz = catalog().at(t.freq).evaluate(counts, ns).value;
    double cycles = catalog().at(t.cycles).evaluate(counts, ns).value;
    double lat = catalog().at(t.ns).evaluate(counts, ns).value;
    EXPECT_NEAR(lat, cycles / ghz, lat * 1e-12) << t.ns;
  }
}

// No requests in the window: the latency is not a number, and the evaluation says why.
TEST(Tegra410, IdleLinkGivesAnInvalidLatencyNotACrash) {
  auto r = catalog()
               .at("t410_nvclink_in_rd_latency")
               .evaluate({{"IN_RD_CUM_OUTS", 0}, {"IN_RD_REQ", 0}, {"CYCLES", 1.25e9}}, 1e9);
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(std::isnan(r.value));
  EXPECT_EQ(r.problem, "division by zero: 'IN_RD_REQ' is 0");
}

// Grace's "nvidia_pcie_pmu_<socket>" and Tegra410's "nvidia_pcie_pmu_<socket>_rc_<rc>" share a
// prefix but not their events: each PMU gets only its own metrics.
TEST(Tegra410, PciePmusAreNotConfusedWithGraces) {
  auto t410 = catalog().for_pmu("nvidia_pcie_pmu_1_rc_3");
  auto grace = catalog().for_pmu("nvidia_pcie_pmu_1");
  ASSERT_EQ(t410.size(), 7u);
  ASSERT_EQ(grace.size(), 8u);
  for (const auto* m : t410) EXPECT_EQ(m->name().rfind("t410_pcie_", 0), 0u) << m->name();
  for (const auto* m : grace) EXPECT_EQ(m->name().rfind("pcie_rp_", 0), 0u) << m->name();
  EXPECT_EQ(catalog().find_pmu_type("nvidia_pcie_pmu_1_rc_3")->pattern, "nvidia_pcie_pmu_%u_rc_%u");
  EXPECT_EQ(catalog().find_pmu_type("nvidia_pcie_tgt_pmu_0_rc_0")->pattern, "nvidia_pcie_tgt_pmu_%u_rc_%u");
}
