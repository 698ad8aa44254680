// AMD EPYC metrics (platforms/metrics/amd.json): hand-computed worked examples, and the events each
// metric binds are perf's named events of the kernel's files (platforms/pmus/amd.json) on every
// generation the metric is for, compared by the config they encode to.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "metric_cases.h"
#include "pmukit/platform/database.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"

namespace pmukit::test {

std::vector<MetricCase> amd_cases() {
  return {
      {"amd_dram_read_bw", {{"UMC_CAS_CMD_RD", 1.5e9}}, 1e9, 96.0, "by hand: 1.5e9 read CAS x 64 B in 1 s = 96 GB/s"},
      {"amd_dram_write_bw", {{"UMC_CAS_CMD_WR", 5e8}}, 2e9, 16.0, "by hand: 5e8 write CAS x 64 B in 2 s = 16 GB/s"},
      {"amd_umc_read_bw", {{"UMC_CAS_CMD_RD", 1e8}}, 1e9, 6.4, "by hand: one channel's 1e8 read CAS x 64 B in 1 s"},
      {"amd_umc_write_bw", {{"UMC_CAS_CMD_WR", 5e7}}, 1e9, 3.2, "by hand: one channel's 5e7 write CAS x 64 B in 1 s"},
      {"amd_zen2_df_dram_bw",
       {{"DRAM_CHANNEL_DATA", 8e9}},
       1e10,
       51.2,
       "by hand: 8 channels x 1e9 requests with data x 64 B in 10 s"},
      {"amd_zen3_df_dram_bw",
       {{"DRAM_CHANNEL_DATA", 2.5e9}},
       1e9,
       160.0,
       "by hand: 2.5e9 requests with data x 64 B in 1 s"},
      {"amd_l3_miss_ratio",
       {{"L3_MISS", 2.5e7}, {"L3_ACCESS", 1e8}},
       1e9,
       25.0,
       "by hand: 2.5e7 misses of 1e8 lookups"},
  };
}

}  // namespace pmukit::test

using pmukit::test::catalog;

namespace {

std::uint64_t config(const std::string& kind, const std::string& terms) {
  const auto* k = pmukit::platform::Database::builtin().pmu_kind(kind);
  if (!k) throw std::runtime_error("no pmu kind " + kind);
  pmukit::syntax::PmuDescription d;
  for (const auto& [name, bits] : k->formats) d.formats[name] = pmukit::syntax::parse_format(name, bits);
  return pmukit::syntax::encode(pmukit::syntax::parse_event_list("p/" + terms + "/").at(0), d).config;
}

// The config perf's named event `event` of `kind` encodes to.
std::uint64_t named(const std::string& kind, const std::string& event) {
  return config(kind, pmukit::platform::Database::builtin().pmu_kind(kind)->events.at(event).terms);
}

const std::vector<std::string>& events_of(const std::string& metric, const std::string& variable) {
  for (const auto& b : catalog().at(metric).events())
    if (b.variable == variable) return b.events;
  throw std::runtime_error(metric + " binds no " + variable);
}

}  // namespace

TEST(AmdMetrics, UmcBandwidthsCountPerfsCasCommands) {
  for (const std::string kind : {"amd_umc_zen4", "amd_umc_zen5"}) {
    ASSERT_EQ(events_of("amd_dram_read_bw", "UMC_CAS_CMD_RD").size(), 1u);
    EXPECT_EQ(config(kind, events_of("amd_dram_read_bw", "UMC_CAS_CMD_RD")[0]), named(kind, "umc_cas_cmd.rd")) << kind;
    EXPECT_EQ(config(kind, events_of("amd_dram_write_bw", "UMC_CAS_CMD_WR")[0]), named(kind, "umc_cas_cmd.wr")) << kind;
  }
  EXPECT_TRUE(catalog().at("amd_umc_read_bw").applies_to("amd_umc_11"));
  EXPECT_FALSE(catalog().at("amd_umc_read_bw").applies_to("amd_umc"));
  EXPECT_TRUE(catalog().at("amd_dram_read_bw").applies_to("amd_umc"));  // every channel, as perf merges them
  EXPECT_EQ(config("amd_umc_zen4", events_of("amd_umc_read_bw", "UMC_CAS_CMD_RD")[0]),
            named("amd_umc_zen4", "umc_cas_cmd.rd"));
  EXPECT_FALSE(catalog().at("amd_dram_write_bw").applies_to("amd_df"));
}

// The kernel's nps1_die_to_dram sums dram_channel_data_controller_0..7; so must the DF metrics.
TEST(AmdMetrics, DataFabricBandwidthSumsTheEightDramChannels) {
  const std::vector<std::pair<std::string, std::string>> metrics = {{"amd_zen2_df_dram_bw", "amd_df_zen2"},
                                                                    {"amd_zen3_df_dram_bw", "amd_df_zen3"}};
  for (const auto& [metric, kind] : metrics) {
    const auto& events = events_of(metric, "DRAM_CHANNEL_DATA");
    ASSERT_EQ(events.size(), 8u) << metric;
    for (std::size_t ch = 0; ch < events.size(); ++ch)
      EXPECT_EQ(config(kind, events[ch]), named(kind, "dram_channel_data_controller_" + std::to_string(ch)))
          << metric << " channel " << ch;
    EXPECT_TRUE(catalog().at(metric).applies_to("amd_df"));
  }
  // The DF's DRAM channel events are codes of one generation each (perf's amdzen2 / amdzen3 files):
  // a Zen 4 or Zen 3 amd_df runs the other generation's metric no more.
  const auto& db = pmukit::platform::Database::builtin();
  EXPECT_FALSE(catalog().at("amd_zen3_df_dram_bw").applies_to("amd_df", db.pmu_kind("amd_df_zen4")));
  EXPECT_FALSE(catalog().at("amd_zen2_df_dram_bw").applies_to("amd_df", db.pmu_kind("amd_df_zen3")));
  EXPECT_TRUE(catalog().at("amd_zen3_df_dram_bw").applies_to("amd_df", db.pmu_kind("amd_df_zen3")));
}

// Zen 2/3 name them l3_misses and l3_accesses / l3_cache_accesses (recommended.json); Zen 4/5
// l3_lookup_state.l3_miss and .all_coherent_accesses_to_l3: the same codes on every generation.
TEST(AmdMetrics, L3MissRatioCountsTheL3LookupsOfEveryGeneration) {
  const auto& miss = events_of("amd_l3_miss_ratio", "L3_MISS").at(0);
  const auto& all = events_of("amd_l3_miss_ratio", "L3_ACCESS").at(0);
  EXPECT_EQ(config("amd_l3_zen2", miss), named("amd_l3_zen2", "l3_misses"));
  EXPECT_EQ(config("amd_l3_zen2", all), named("amd_l3_zen2", "l3_accesses"));
  EXPECT_EQ(config("amd_l3_zen3", miss), named("amd_l3_zen3", "l3_misses"));
  EXPECT_EQ(config("amd_l3_zen3", all), named("amd_l3_zen3", "l3_cache_accesses"));
  for (const std::string kind : {"amd_l3_zen4", "amd_l3_zen5"}) {
    EXPECT_EQ(config(kind, miss), named(kind, "l3_lookup_state.l3_miss")) << kind;
    EXPECT_EQ(config(kind, all), named(kind, "l3_lookup_state.all_coherent_accesses_to_l3")) << kind;
  }
  EXPECT_TRUE(catalog().at("amd_l3_miss_ratio").applies_to("amd_l3"));
}

// perf's umc_mem_read_bandwidth is (umc_cas_cmd.rd * 64) / 1e6 / duration_time in MB/s with
// duration_time in seconds: the same bytes per CAS as the metric's GB/s over nanoseconds.
TEST(AmdMetrics, BytesPerCasAgreeWithPerfsMetric) {
  const double cas = 123456789, seconds = 3;
  double perf_mb_per_s = (cas * 64) / 1e6 / seconds;
  auto r = catalog().at("amd_dram_read_bw").evaluate({{"UMC_CAS_CMD_RD", cas}}, seconds * 1e9, {});
  ASSERT_TRUE(r.valid) << r.problem;
  EXPECT_DOUBLE_EQ(r.value * 1e3, perf_mb_per_s);
}
