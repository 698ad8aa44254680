// perf's Intel uncore metrics with a formula per generation (perf_intel_uncore.json variants):
// hand-computed values, one case for each generation's formula, and the choice of formula by kind.
#include <gtest/gtest.h>

#include "metric_cases.h"

namespace pmukit::test {

std::vector<MetricCase> perf_intel_variant_cases() {
  const std::string sc_clk = "source_count(UNC_CHA_CLOCKTICKS)";
  const std::string sc_occ = "source_count(UNC_CHA_TOR_OCCUPANCY_IA_MISS_DRD)";
  return {
      // uncore_frequency: the ticks of every CHA of every socket over (CHAs a socket x sockets), in GHz.
      {"uncore_frequency",
       {{"UNC_CHA_CLOCKTICKS", 1.12e11}, {sc_clk, 28}, {"#num_packages", 2}},
       1e9,
       2.0,
       "by hand: 2 sockets x 28 CHAs x 2e9 ticks in 1 s = 2 GHz a CHA",
       {},
       "intel_skx_cha"},
      {"uncore_frequency",
       {{"UNC_CHA_CLOCKTICKS", 1.44e11}, {sc_clk, 40}, {"#num_packages", 2}},
       1e9,
       1.8,
       "by hand: 2 sockets x 40 CHAs x 1.8e9 ticks in 1 s",
       {},
       "intel_icx_cha"},
      {"uncore_frequency",
       {{"UNC_CHA_CLOCKTICKS", 4.8e11}, {sc_clk, 60}, {"#num_packages", 2}},
       2e9,
       2.0,
       "by hand: 2 sockets x 60 CHAs x 2e9 ticks a second for 2 s",
       {},
       "intel_spr_cha"},
      // llc_demand_data_read_miss_latency: TOR occupancy per insert, in cycles of one CHA's clock, as ns.
      {"llc_demand_data_read_miss_latency",
       {{"UNC_CHA_TOR_OCCUPANCY_IA_MISS_DRD", 6e10},
        {"UNC_CHA_TOR_INSERTS_IA_MISS_DRD", 5e8},
        {"UNC_CHA_CLOCKTICKS", 1.6e11},
        {sc_occ, 40},
        {"#num_packages", 2}},
       1e9,
       60,
       "by hand: 120 cycles a miss; 80 CHAs tick 2e9 in 1 s (2 GHz): 60 ns",
       {},
       "intel_icx_cha"},
      {"llc_demand_data_read_miss_latency",
       {{"UNC_CHA_TOR_OCCUPANCY_IA_MISS_DRD", 1.2e11},
        {"UNC_CHA_TOR_INSERTS_IA_MISS_DRD", 1e9},
        {"UNC_CHA_CLOCKTICKS", 1.44e11},
        {sc_occ, 60},
        {"#num_packages", 2}},
       5e8,
       50,
       "by hand: 120 cycles a miss; 120 CHAs tick 1.2e9 in 0.5 s (2.4 GHz): 50 ns",
       {},
       "intel_spr_cha"},
      // io_bandwidth_read/write: IIO 4-byte units of four parts (Skylake-SP/Cascade Lake), CHA lines of
      // 64 bytes (Ice Lake-SP: hits and misses apart; Sapphire Rapids on), MB/s.
      {"io_bandwidth_read",
       {{"UNC_IIO_DATA_REQ_OF_CPU_MEM_READ_PART0", 1e8},
        {"UNC_IIO_DATA_REQ_OF_CPU_MEM_READ_PART1", 2e8},
        {"UNC_IIO_DATA_REQ_OF_CPU_MEM_READ_PART2", 3e8},
        {"UNC_IIO_DATA_REQ_OF_CPU_MEM_READ_PART3", 4e8}},
       1e9,
       4000,
       "by hand: 1e9 x 4 B in 1 s",
       {},
       "intel_skx_iio"},
      {"io_bandwidth_read",
       {{"UNC_CHA_TOR_INSERTS_IO_HIT_PCIRDCUR", 5e7}, {"UNC_CHA_TOR_INSERTS_IO_MISS_PCIRDCUR", 1.5e8}},
       1e9,
       12800,
       "by hand: 2e8 lines x 64 B in 1 s",
       {},
       "intel_icx_cha"},
      {"io_bandwidth_read",
       {{"UNC_CHA_TOR_INSERTS_IO_PCIRDCUR", 1e8}},
       2e9,
       3200,
       "by hand: 1e8 lines x 64 B in 2 s",
       {},
       "intel_spr_cha"},
      {"io_bandwidth_write",
       {{"UNC_IIO_PAYLOAD_BYTES_IN_MEM_WRITE_PART0", 2.5e8},
        {"UNC_IIO_PAYLOAD_BYTES_IN_MEM_WRITE_PART1", 2.5e8},
        {"UNC_IIO_PAYLOAD_BYTES_IN_MEM_WRITE_PART2", 2.5e8},
        {"UNC_IIO_PAYLOAD_BYTES_IN_MEM_WRITE_PART3", 2.5e8}},
       2e9,
       2000,
       "by hand: 1e9 x 4 B in 2 s",
       {},
       "intel_skx_iio"},
      {"io_bandwidth_write",
       {{"UNC_CHA_TOR_INSERTS_IO_HIT_ITOM", 1e7},
        {"UNC_CHA_TOR_INSERTS_IO_MISS_ITOM", 2e7},
        {"UNC_CHA_TOR_INSERTS_IO_HIT_ITOMCACHENEAR", 3e7},
        {"UNC_CHA_TOR_INSERTS_IO_MISS_ITOMCACHENEAR", 4e7}},
       1e9,
       6400,
       "by hand: 1e8 lines x 64 B in 1 s",
       {},
       "intel_icx_cha"},
      {"io_bandwidth_write",
       {{"UNC_CHA_TOR_INSERTS_IO_ITOM", 3e7}, {"UNC_CHA_TOR_INSERTS_IO_ITOMCACHENEAR", 2e7}},
       1e9,
       3200,
       "by hand: 5e7 lines x 64 B in 1 s",
       {},
       "intel_spr_cha"},
  };
}

}  // namespace pmukit::test

// Each case's kind selects one variant, whose events are that generation's codes.
TEST(PerfIntelVariants, EachGenerationHasItsOwnFormulaAndCodes) {
  for (const auto& c : pmukit::test::perf_intel_variant_cases()) {
    const auto* m = pmukit::test::metric_of(c);
    ASSERT_NE(m, nullptr) << c.metric << " " << c.pmu_kind;
    EXPECT_EQ(m->spec().pmu_kinds, std::vector<std::string>{c.pmu_kind}) << c.metric;
  }
  const auto freq = pmukit::test::catalog().variants("uncore_frequency");
  ASSERT_EQ(freq.size(), 3u);
  EXPECT_EQ(freq[1]->events().at(0).events.at(0), "event=0x00");  // UNC_CHA_CLOCKTICKS on Ice Lake-SP
  EXPECT_EQ(freq[2]->events().at(0).events.at(0), "event=0x01");  // and from Sapphire Rapids on
}
