// Yitian 710 metrics against the Alibaba Yitian 710 PCIe PMU guide (DesignWare PCIe, checked against
// fio) and the Alibaba Yitian 710 CMN guide (CMN-700 cross-die bandwidth), and the Intel IMC CAS
// bandwidths against hand-computed values.
#include <gtest/gtest.h>

#include "metric_cases.h"

namespace pmukit::test {

std::vector<MetricCase> other_cases() {
  const std::string pcie_guide = "Alibaba Yitian 710 PCIe PMU guide §4, pcie_bdf_200 and fio: ";
  const std::string cmn_guide = "Alibaba Yitian 710 CMN guide §3: ";
  return {
      // Anolis driver: raw 16-byte units over fio's run time.
      {"pcie_bdf_rx_bw",
       {{"PCIE_RX_DATA", 536910432}},
       15854e6,
       536910432.0 * 16 / 15854e6,
       pcie_guide + "2 GiB read, 536,910,432 units, run=15854msec"},
      {"pcie_bdf_rx_bw",
       {{"PCIE_RX_DATA", 6777637176}},
       200120e6,
       6777637176.0 * 16 / 200120e6,
       pcie_guide + "200 s read (counter past 32 bits), 6,777,637,176 units, run=200120msec"},
      {"pcie_bdf_rx_bw",
       {{"PCIE_RX_DATA", 681297119}},
       20117e6,
       681297119.0 * 16 / 20117e6,
       pcie_guide + "20 s read, 681,297,119 units, run=20117msec"},
      {"pcie_bdf_tx_bw",
       {{"PCIE_TX_DATA", 288016854}},
       20355e6,
       288016854.0 * 16 / 20355e6,
       pcie_guide + "20 s write, 288,016,854 units, run=20355msec"},
      {"pcie_bdf_rx_bw",
       {{"PCIE_RX_DATA", 211517354}},
       20.6e9,
       211517354.0 * 16 / 20.6e9,
       pcie_guide + "read/write mix, multiplexed, divided by 20.6 s as the guide does"},
      {"pcie_bdf_tx_bw",
       {{"PCIE_TX_DATA", 221219025}},
       20.6e9,
       221219025.0 * 16 / 20.6e9,
       pcie_guide + "read/write mix, multiplexed, divided by 20.6 s as the guide does"},
      // Upstream dwc_rootport: the driver already multiplied by 16, so the count is bytes.
      {"dwc_pcie_rx_bw",
       {{"RX_PCIE_BYTES", 536910432.0 * 16}},
       15854e6,
       536910432.0 * 16 / 15854e6,
       pcie_guide + "the same 2 GiB read as the upstream driver would count it"},
      {"dwc_pcie_tx_bw",
       {{"TX_PCIE_BYTES", 288016854.0 * 16}},
       20355e6,
       288016854.0 * 16 / 20355e6,
       pcie_guide + "the same 20 s write as the upstream driver would count it"},

      // CMN: the guide's own arithmetic, 32*810164744*4*1.8/12213460910 = 15.283297534834457, i.e.
      // the four D2D nodes taken as four times node 413. Its event is eventid=0x22 (ccla_tx_cxs).
      {"yitian_cmn_cross_die_tx_bw",
       {{"LA_TX_CXS", 4.0 * 810164744}, {"PMU_CYCLE_COUNTER", 12213460910}},
       6785306920,
       15.283297534834457,
       cmn_guide + "bw_mem rd across dies, CMN at 1.8 GHz"},
      {"yitian_cmn_cross_die_rx_bw",
       {{"LA_RX_CXS", 1e9}, {"PMU_CYCLE_COUNTER", 1.8e10}},
       1e10,
       3.2,
       "by hand: 1e9 flits x 32 B in 1.8e10 cycles at 1.8 GHz = 10 s"},
      {"yitian_cmn_cross_socket_rx_bw",
       {{"LA_RX_CXS", 5e8}, {"PMU_CYCLE_COUNTER", 9e9}},
       5e9,
       3.2,
       "by hand: 5e8 flits x 32 B in 9e9 cycles = 5 s"},
      {"yitian_cmn_hnf_mc_bw",
       {{"HNF_MC_REQS", 5e8}, {"PMU_CYCLE_COUNTER", 9e9}},
       5e9,
       6.4,
       "by hand: 5e8 memory-controller requests x 64 B in 9e9 cycles at 1.8 GHz = 5 s"},
      {"yitian_cmn_cross_socket_tx_bw",
       {{"LA_TX_CXS", 2.5e8}, {"PMU_CYCLE_COUNTER", 9e9}},
       5e9,
       1.6,
       "by hand: 2.5e8 flits x 32 B in 5 s"},
      {"yitian_cmn_cross_die_tx_bw",
       {{"LA_TX_CXS", 1e9}, {"PMU_CYCLE_COUNTER", 2e10}},
       1e10,
       3.2,
       "by hand with CMN_FREQ_GHZ = 2: 1e9 flits x 32 B in 2e10 cycles at 2 GHz = 10 s",
       {{"CMN_FREQ_GHZ", 2.0}}},

      // Intel SPR IMC: 64 bytes per CAS.
      {"spr_imc_read_bw", {{"CAS_COUNT_READ", 1e9}}, 1e10, 6.4, "by hand: 1e9 CAS x 64 B in 10 s"},
      {"spr_imc_write_bw", {{"CAS_COUNT_WRITE", 5e8}}, 1e10, 3.2, "by hand: 5e8 CAS x 64 B in 10 s"},
      // The whole socket: what the rows of its 8 channels sum to.
      {"spr_dram_read_bw", {{"CAS_COUNT_READ", 8e9}}, 1e10, 51.2, "by hand: 8 channels x 1e9 CAS x 64 B in 10 s"},
      {"spr_dram_write_bw", {{"CAS_COUNT_WRITE", 4e9}}, 1e10, 25.6, "by hand: 8 channels x 5e8 CAS x 64 B in 10 s"},
      // perf's Intel uncore metrics (perf_intel_uncore.json): MB/s over perf's duration_time in seconds.
      {"memory_bandwidth_read",
       {{"UNC_M_CAS_COUNT_RD", 1e9}},
       1e10,
       6400,
       "by hand: 1e9 CAS x 64 B in 10 s = 6400 MB/s"},
      {"memory_bandwidth_write", {{"UNC_M_CAS_COUNT_WR", 5e8}}, 1e10, 3200, "by hand: 5e8 CAS x 64 B in 10 s"},
      {"memory_bandwidth_total",
       {{"UNC_M_CAS_COUNT_RD", 1e9}, {"UNC_M_CAS_COUNT_WR", 5e8}},
       1e10,
       9600,
       "by hand: 1.5e9 CAS x 64 B in 10 s"},
      {"upi_data_transmit_bw",
       {{"UNC_UPI_TxL_FLITS_ALL_DATA", 9e8}},
       1e9,
       6400,
       "by hand: 9 flits per 64 B: 1e8 lines in 1 s"},
      {"upi_data_receive_bw", {{"UNC_UPI_RxL_FLITS_ALL_DATA", 4.5e8}}, 2e9, 1600, "by hand: 5e7 lines of 64 B in 2 s"},
      {"upi_link_rx_bw", {{"UNC_UPI_RxL_FLITS_ALL_DATA", 4.5e8}}, 2e9, 1.6, "by hand: 5e7 lines of 64 B in 2 s, GB/s"},
      {"upi_link_tx_bw", {{"UNC_UPI_TxL_FLITS_ALL_DATA", 9e8}}, 1e9, 6.4, "by hand: 1e8 lines of 64 B in 1 s, GB/s"},
      {"llc_miss_local_memory_bandwidth_read",
       {{"UNC_CHA_REQUESTS_READS_LOCAL", 1e8}},
       1e9,
       6400,
       "by hand: 1e8 lines"},
      {"llc_miss_local_memory_bandwidth_write",
       {{"UNC_CHA_REQUESTS_WRITES_LOCAL", 5e7}},
       1e9,
       3200,
       "by hand: 5e7 lines"},
      {"llc_miss_remote_memory_bandwidth_read",
       {{"UNC_CHA_REQUESTS_READS_REMOTE", 2e7}},
       5e8,
       2560,
       "by hand: 2e7 lines in 0.5 s"},
      {"llc_miss_remote_memory_bandwidth_write",
       {{"UNC_CHA_REQUESTS_WRITES_REMOTE", 1e6}},
       1e9,
       64,
       "by hand: 1e6 lines"},
      // Every generation's named CAS events (cas_count_read/write): the same 64 bytes per CAS.
      {"imc_read_bw", {{"CAS_COUNT_READ", 1e9}}, 1e10, 6.4, "by hand: 1e9 CAS x 64 B in 10 s"},
      {"imc_write_bw", {{"CAS_COUNT_WRITE", 5e8}}, 1e10, 3.2, "by hand: 5e8 CAS x 64 B in 10 s"},
      {"dram_read_bw", {{"CAS_COUNT_READ", 6e9}}, 1e10, 38.4, "by hand: 6 channels x 1e9 CAS x 64 B in 10 s"},
      {"dram_write_bw", {{"CAS_COUNT_WRITE", 3e9}}, 1e10, 19.2, "by hand: 6 channels x 5e8 CAS x 64 B in 10 s"},
      {"dram_bw",
       {{"CAS_COUNT_READ", 6e9}, {"CAS_COUNT_WRITE", 3e9}},
       1e10,
       57.6,
       "by hand: (6e9 + 3e9) CAS x 64 B in 10 s"},
      // Intel IIO (pcm-iio's multiplier 4: IIO data events count 4-byte units; IOMMU counts per second).
      {"iio_inbound_read_bw", {{"DATA_REQ_OF_CPU_MEM_READ", 2.5e9}}, 1e9, 10.0, "by hand: 2.5e9 x 4 B in 1 s"},
      {"iio_inbound_write_bw", {{"DATA_REQ_OF_CPU_MEM_WRITE", 1e9}}, 2e9, 2.0, "by hand: 1e9 x 4 B in 2 s"},
      {"iio_outbound_write_bw", {{"DATA_REQ_BY_CPU_MEM_WRITE", 5e7}}, 1e9, 0.2, "by hand: 5e7 x 4 B in 1 s"},
      {"spr_iio_outbound_read_bw", {{"DATA_REQ_OF_CPU_CMPD", 1e8}}, 1e9, 0.4, "by hand: 1e8 x 4 B in 1 s"},
      {"gnr_iio_outbound_read_bw", {{"DATA_REQ_BY_CPU_MEM_READ", 3e8}}, 4e9, 0.3, "by hand: 3e8 x 4 B in 4 s"},
      {"iio_iotlb_lookups", {{"IOMMU0_FIRST_LOOKUPS", 6e6}}, 3e9, 2e6, "by hand: 6e6 lookups in 3 s"},
      {"iio_iotlb_misses", {{"IOMMU0_MISSES", 1e5}}, 5e8, 2e5, "by hand: 1e5 misses in 0.5 s"},
      {"iio_ctxt_cache_hits", {{"IOMMU0_CTXT_CACHE_HITS", 7e6}}, 2e9, 3.5e6, "by hand: 7e6 hits in 2 s"},
  };
}

}  // namespace pmukit::test

using pmukit::test::catalog;

namespace {

double bw(const char* metric, const char* var, double count, double ns) {
  auto r = catalog().at(metric).evaluate({{var, count}}, ns);
  EXPECT_TRUE(r.valid) << r.problem;
  return r.value;
}

}  // namespace

// the guide's python prints the payload in MB (>>> count * 16/1000/1000); fio reports the same
// transfer. Bandwidth times time gives the guide's MB back, and the rate is fio's.
TEST(YitianPcieGuide, PayloadUnitsTimes16MatchTheGuideAndFio) {
  double rx = bw("pcie_bdf_rx_bw", "PCIE_RX_DATA", 536910432, 15854e6);
  EXPECT_NEAR(rx * 15854e6 / 1e6, 8590, 1);  // "8590", fio: io=8192MiB (8590MB)
  EXPECT_NEAR(rx * 1000, 542, 0.5);          // fio: BW=517MiB/s (542MB/s)
  double rx200 = bw("pcie_bdf_rx_bw", "PCIE_RX_DATA", 6777637176, 200120e6);
  EXPECT_NEAR(rx200 * 200120e6 / 1e6, 108442, 1);  // "108442"
  EXPECT_NEAR(rx200 * 1000, 542, 0.5);
  double rx20 = bw("pcie_bdf_rx_bw", "PCIE_RX_DATA", 681297119, 20117e6);
  EXPECT_NEAR(rx20 * 20117e6 / 1e6, 10900, 1);  // "10900 MB"
  EXPECT_NEAR(rx20 * 1000, 542, 0.5);
  double tx = bw("pcie_bdf_tx_bw", "PCIE_TX_DATA", 288016854, 20355e6);
  EXPECT_NEAR(tx * 20355e6 / 1e6, 4608, 1);  // "4608 MB", fio: io=4393MiB (4606MB)
  EXPECT_NEAR(tx * 1000, 226, 0.5);          // fio: BW=216MiB/s (226MB/s)
  // The multiplexed read/write run: the guide prints 3384 MB and 3539 MB, then divides those rounded
  // figures by 20.6 s for "164.27 MB/s" and "171.79 MB", hence the looser rate check.
  double mix_rx = bw("pcie_bdf_rx_bw", "PCIE_RX_DATA", 211517354, 20.6e9);
  double mix_tx = bw("pcie_bdf_tx_bw", "PCIE_TX_DATA", 221219025, 20.6e9);
  EXPECT_NEAR(mix_rx * 20.6e9 / 1e6, 3384, 1);
  EXPECT_NEAR(mix_tx * 20.6e9 / 1e6, 3539, 1);
  EXPECT_NEAR(mix_rx * 1000, 164.27, 0.05);
  EXPECT_NEAR(mix_tx * 1000, 171.79, 0.05);
}

// Same transfer, two drivers: the upstream one counts bytes, the Anolis one 16-byte units.
TEST(YitianPcieGuide, UpstreamAndAnolisDriversGiveTheSameBandwidth) {
  EXPECT_DOUBLE_EQ(bw("dwc_pcie_rx_bw", "RX_PCIE_BYTES", 536910432.0 * 16, 15854e6),
                   bw("pcie_bdf_rx_bw", "PCIE_RX_DATA", 536910432, 15854e6));
  EXPECT_DOUBLE_EQ(bw("dwc_pcie_tx_bw", "TX_PCIE_BYTES", 288016854.0 * 16, 20355e6),
                   bw("pcie_bdf_tx_bw", "PCIE_TX_DATA", 288016854, 20355e6));
}

// The metric sums the four CCLA nodes' counts instead of multiplying one by four as the guide's
// shortcut does; with the four counts the guide printed, the total is 15.305 GB/s.
TEST(YitianCmnGuide, FourNodeCountsAreSummed) {
  const auto& m = catalog().at("yitian_cmn_cross_die_tx_bw");
  ASSERT_EQ(m.events().size(), 2u);
  auto sums = m.sum_event_counts(
      {{"LA_TX_CXS", {810164744, 810632046, 812716494, 811744534}}, {"PMU_CYCLE_COUNTER", {12213460910}}});
  EXPECT_EQ(sums.at("LA_TX_CXS"), 3245257818.0);
  auto r = m.evaluate(sums, 6785306920);
  ASSERT_TRUE(r.valid) << r.problem;
  EXPECT_NEAR(r.value, 32 * 3245257818.0 * 1.8 / 12213460910, 1e-12);
  EXPECT_NEAR(r.value, 15.305, 0.0005);
  // bw_mem itself reported 10987.55 MB/s for its timed part (the guide explains the gap).
  EXPECT_GT(r.value, 10.98755);
}

// The D2D events are the four nodes of the guide's perf command line, on the CCLA node type.
TEST(YitianCmnGuide, EventsAreTheGuidesPerfTerms) {
  const auto& m = catalog().at("yitian_cmn_cross_die_tx_bw");
  for (const auto& b : m.events()) {
    if (b.variable == "PMU_CYCLE_COUNTER") {
      EXPECT_EQ(b.events, std::vector<std::string>{"dtc_cycles"});
    }
    if (b.variable != "LA_TX_CXS") continue;
    ASSERT_EQ(b.events.size(), 4u);
    EXPECT_EQ(b.events[0], "type=0x105,eventid=0x22,bynodeid=1,nodeid=413");
    EXPECT_EQ(b.events[3], "type=0x105,eventid=0x22,bynodeid=1,nodeid=437");
  }
  ASSERT_EQ(m.parameters().size(), 1u);
  EXPECT_EQ(m.parameters()[0].name, "CMN_FREQ_GHZ");
  EXPECT_EQ(m.parameters()[0].default_value, 1.8);
  EXPECT_TRUE(m.applies_to("arm_cmn_0"));
  EXPECT_FALSE(m.uses_duration());  // time comes from the DTC cycle count
}

// Linux uncore_snbep.c spr_uncore_imc_events gives the kernel's scale for cas_count_*:
// 6.103515625e-5 MiB per count. The IMC metrics' 64 bytes per CAS must turn counts into the same
// number of bytes.
TEST(IntelImc, BytesPerCasAgreeWithTheKernelsScale) {
  const double cas = 16384, ns = 1e3;
  double kernel_bytes = cas * 6.103515625e-5 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(bw("spr_imc_read_bw", "CAS_COUNT_READ", cas, ns) * ns, kernel_bytes);
  EXPECT_DOUBLE_EQ(bw("spr_imc_write_bw", "CAS_COUNT_WRITE", cas, ns) * ns, kernel_bytes);
  EXPECT_TRUE(catalog().at("spr_imc_read_bw").applies_to("uncore_imc_3"));
  EXPECT_FALSE(catalog().at("spr_imc_read_bw").applies_to("uncore_imc_free_running_0"));
  EXPECT_TRUE(catalog().at("spr_dram_read_bw").applies_to("uncore_imc"));
  EXPECT_FALSE(catalog().at("spr_dram_read_bw").applies_to("uncore_imc_3"));
}
