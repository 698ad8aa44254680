// The NVIDIA Grace Performance Tuning Guide's 45 core metrics (section "Grace CPU 性能指标"): each
// formula evaluated by hand on one set of counts, and the Arm PMUv3 event numbers the catalog counts
// them with. The guide gives formulas but no measured values for these metrics.
#include <gtest/gtest.h>

#include "metric_cases.h"

namespace pmukit::test {

// One machine-wide count set, over 2 s (DURATION_TIME = 2e9 ns): 2e9 cycles, 3e9 instructions
// retired, 4e9 speculated; 8 dispatch slots per cycle, as the guide's slot formulas count them.
std::vector<MetricCase> grace_core_cases() {
  return {
      {"grace_ipc", {{"INST_RETIRED", 3e9}, {"CPU_CYCLES", 2e9}}, 2e9, 1.5, "by hand: INST_RETIRED/CPU_CYCLES"},
      {"grace_retiring",
       {{"OP_RETIRED", 32e8}, {"OP_SPEC", 4e9}, {"STALL_SLOT", 4e9}, {"CPU_CYCLES", 2e9}},
       2e9,
       60.0,
       "by hand: 100 * (OP_RETIRED/OP_SPEC) * (1 - (STALL_SLOT/(CPU_CYCLES*8)))"},
      {"grace_bad_speculation",
       {{"OP_RETIRED", 32e8}, {"OP_SPEC", 4e9}, {"STALL_SLOT", 4e9}, {"CPU_CYCLES", 2e9}, {"BR_MIS_PRED", 1e7}},
       2e9,
       17.0,
       "by hand: 100 * ((1-OP_RETIRED/OP_SPEC) * (1-STALL_SLOT/(CPU_CYCLES * 8)) + BR_MIS_PRED * 4 / CPU_CYCLES)"},
      {"grace_backend_stalled_cycles",
       {{"STALL_BACKEND", 6e8}, {"CPU_CYCLES", 2e9}},
       2e9,
       30.0,
       "by hand: (STALL_BACKEND/CPU_CYCLES)*100"},
      {"grace_frontend_stalled_cycles",
       {{"STALL_FRONTEND", 2e8}, {"CPU_CYCLES", 2e9}},
       2e9,
       10.0,
       "by hand: (STALL_FRONTEND/CPU_CYCLES)*100"},
      {"grace_sve_flops", {{"FP_SCALE_OPS_SPEC", 64e8}}, 2e9, 3.2, "by hand: FP_SCALE_OPS_SPEC/DURATION_TIME"},
      {"grace_non_sve_flops", {{"FP_FIXED_OPS_SPEC", 16e8}}, 2e9, 0.8, "by hand: FP_FIXED_OPS_SPEC/DURATION_TIME"},
      {"grace_flops",
       {{"FP_SCALE_OPS_SPEC", 64e8}, {"FP_FIXED_OPS_SPEC", 16e8}},
       2e9,
       4.0,
       "by hand: (FP_SCALE_OPS_SPEC + FP_FIXED_OPS_SPEC)/DURATION_TIME"},
      {"grace_load_percent", {{"LD_SPEC", 1e9}, {"INST_SPEC", 4e9}}, 2e9, 25.0, "by hand: (LD_SPEC/INST_SPEC)*100"},
      {"grace_store_percent", {{"ST_SPEC", 5e8}, {"INST_SPEC", 4e9}}, 2e9, 12.5, "by hand: (ST_SPEC/INST_SPEC)*100"},
      {"grace_branch_percent",
       {{"BR_IMMED_SPEC", 3e8}, {"BR_INDIRECT_SPEC", 1e8}, {"INST_SPEC", 4e9}},
       2e9,
       10.0,
       "by hand: ((BR_IMMED_SPEC + BR_INDIRECT_SPEC)/INST_SPEC)*100"},
      {"grace_integer_percent", {{"DP_SPEC", 16e8}, {"INST_SPEC", 4e9}}, 2e9, 40.0, "by hand: (DP_SPEC/INST_SPEC)*100"},
      {"grace_floating_point_percent",
       {{"VFP_SPEC", 4e8}, {"INST_SPEC", 4e9}},
       2e9,
       10.0,
       "by hand: (VFP_SPEC/INST_SPEC)*100"},
      {"grace_synchronization_percent",
       {{"ISB_SPEC", 1e6}, {"DSB_SPEC", 2e6}, {"DMB_SPEC", 3e6}, {"INST_SPEC", 4e9}},
       2e9,
       0.15,
       "by hand: ((ISB_SPEC + DSB_SPEC + DMB_SPEC)/INST_SPEC)*100"},
      {"grace_crypto_percent",
       {{"CRYPTO_SPEC", 2e7}, {"INST_SPEC", 4e9}},
       2e9,
       0.5,
       "by hand: (CRYPTO_SPEC/INST_SPEC)*100"},
      {"grace_sve_percent",
       {{"SVE_INST_SPEC", 6e8}, {"INST_SPEC", 4e9}},
       2e9,
       15.0,
       "by hand: (SVE_INST_SPEC/INST_SPEC)*100"},
      {"grace_advanced_simd_percent",
       {{"ASE_INST_SPEC", 2e8}, {"INST_SPEC", 4e9}},
       2e9,
       5.0,
       "by hand: (ASE_INST_SPEC/INST_SPEC)*100"},
      {"grace_simd_percent",
       {{"SVE_INST_SPEC", 6e8}, {"ASE_INST_SPEC", 2e8}, {"INST_SPEC", 4e9}},
       2e9,
       20.0,
       "by hand: ((SVE_INST_SPEC + ASE_INST_SPEC)/INST_SPEC)*100"},
      {"grace_fp16_percent",
       {{"FP_HP_SPEC", 4e7}, {"INST_SPEC", 4e9}},
       2e9,
       1.0,
       "by hand: (FP_HP_SPEC/INST_SPEC)*100"},
      {"grace_fp32_percent",
       {{"FP_SP_SPEC", 12e7}, {"INST_SPEC", 4e9}},
       2e9,
       3.0,
       "by hand: (FP_SP_SPEC/INST_SPEC)*100"},
      {"grace_fp64_percent",
       {{"FP_DP_SPEC", 24e7}, {"INST_SPEC", 4e9}},
       2e9,
       6.0,
       "by hand: (FP_DP_SPEC/INST_SPEC)*100"},
      {"grace_full_sve_percent",
       {{"SVE_PRED_FULL_SPEC", 5e8}, {"INST_SPEC", 4e9}},
       2e9,
       12.5,
       "by hand: (SVE_PRED_FULL_SPEC/INST_SPEC)*100"},
      {"grace_partial_sve_percent",
       {{"SVE_PRED_PARTIAL_SPEC", 9e7}, {"INST_SPEC", 4e9}},
       2e9,
       2.25,
       "by hand: (SVE_PRED_PARTIAL_SPEC/INST_SPEC)*100"},
      {"grace_empty_sve_percent",
       {{"SVE_PRED_EMPTY_SPEC", 1e7}, {"INST_SPEC", 4e9}},
       2e9,
       0.25,
       "by hand: (SVE_PRED_EMPTY_SPEC/INST_SPEC)*100"},
      {"grace_l1d_cache_miss_ratio",
       {{"L1D_CACHE_REFILL", 6e7}, {"L1D_CACHE", 15e8}},
       2e9,
       0.04,
       "by hand: L1D_CACHE_REFILL/L1D_CACHE"},
      {"grace_l1d_cache_mpki",
       {{"L1D_CACHE_REFILL", 6e7}, {"INST_RETIRED", 3e9}},
       2e9,
       20.0,
       "by hand: (L1D_CACHE_REFILL/INST_RETIRED) * 1000"},
      {"grace_l1i_cache_miss_ratio",
       {{"L1I_CACHE_REFILL", 3e6}, {"L1I_CACHE", 12e8}},
       2e9,
       0.0025,
       "by hand: L1I_CACHE_REFILL/L1I_CACHE"},
      {"grace_l1i_cache_mpki",
       {{"L1I_CACHE_REFILL", 3e6}, {"INST_RETIRED", 3e9}},
       2e9,
       1.0,
       "by hand: (L1I_CACHE_REFILL/INST_RETIRED) * 1000"},
      {"grace_l2_cache_miss_ratio",
       {{"L2D_CACHE_REFILL", 3e7}, {"L2D_CACHE", 12e7}},
       2e9,
       0.25,
       "by hand: L2D_CACHE_REFILL/L2D_CACHE"},
      {"grace_l2_cache_mpki",
       {{"L2D_CACHE_REFILL", 3e7}, {"INST_RETIRED", 3e9}},
       2e9,
       10.0,
       "by hand: (L2D_CACHE_REFILL/INST_RETIRED) * 1000"},
      {"grace_ll_cache_read_hit_ratio",
       {{"LL_CACHE_RD", 4e7}, {"LL_CACHE_MISS_RD", 1e7}},
       2e9,
       0.75,
       "by hand: (LL_CACHE_RD - LL_CACHE_MISS_RD) / LL_CACHE_RD"},
      {"grace_ll_cache_read_miss_ratio",
       {{"LL_CACHE_MISS_RD", 1e7}, {"LL_CACHE_RD", 4e7}},
       2e9,
       0.25,
       "by hand: LL_CACHE_MISS_RD / LL_CACHE_RD"},
      {"grace_ll_cache_read_mpki",
       {{"LL_CACHE_MISS_RD", 1e7}, {"INST_RETIRED", 3e9}},
       2e9,
       10.0 / 3,  // 3.333... misses per thousand instructions
       "by hand: (LL_CACHE_MISS_RD/INST_RETIRED) * 1000"},
      {"grace_l1d_tlb_miss_ratio",
       {{"L1D_TLB_REFILL", 9e6}, {"L1D_TLB", 15e8}},
       2e9,
       0.006,
       "by hand: L1D_TLB_REFILL/L1D_TLB"},
      {"grace_l1d_tlb_mpki",
       {{"L1D_TLB_REFILL", 9e6}, {"INST_RETIRED", 3e9}},
       2e9,
       3.0,
       "by hand: (L1D_TLB_REFILL/INST_RETIRED) * 1000"},
      {"grace_l1i_tlb_miss_ratio",
       {{"L1I_TLB_REFILL", 15e5}, {"L1I_TLB", 12e8}},
       2e9,
       0.00125,
       "by hand: L1I_TLB_REFILL/L1I_TLB"},
      {"grace_l1i_tlb_mpki",
       {{"L1I_TLB_REFILL", 15e5}, {"INST_RETIRED", 3e9}},
       2e9,
       0.5,
       "by hand: (L1I_TLB_REFILL/INST_RETIRED) * 1000"},
      {"grace_dtlb_walk_mpki",
       {{"DTLB_WALK", 12e5}, {"INST_RETIRED", 3e9}},
       2e9,
       0.4,
       "by hand: (DTLB_WALK/INST_RETIRED) * 1000"},
      {"grace_dtlb_walk_ratio", {{"DTLB_WALK", 12e5}, {"L1D_TLB", 15e8}}, 2e9, 0.0008, "by hand: DTLB_WALK / L1D_TLB"},
      {"grace_itlb_walk_mpki",
       {{"ITLB_WALK", 3e5}, {"INST_RETIRED", 3e9}},
       2e9,
       0.1,
       "by hand: (ITLB_WALK/INST_RETIRED) * 1000"},
      {"grace_itlb_walk_ratio", {{"ITLB_WALK", 3e5}, {"L1I_TLB", 12e8}}, 2e9, 0.00025, "by hand: ITLB_WALK / L1I_TLB"},
      {"grace_l2_tlb_miss_ratio",
       {{"L2D_TLB_REFILL", 6e5}, {"L2D_TLB", 12e6}},
       2e9,
       0.05,
       "by hand: L2D_TLB_REFILL / L2D_TLB"},
      {"grace_l2_tlb_mpki",
       {{"L2D_TLB_REFILL", 6e5}, {"INST_RETIRED", 3e9}},
       2e9,
       0.2,
       "by hand: (L2D_TLB_REFILL/INST_RETIRED) * 1000"},
      {"grace_branch_misprediction_ratio",
       {{"BR_MIS_PRED_RETIRED", 8e6}, {"BR_RETIRED", 5e8}},
       2e9,
       0.016,
       "by hand: BR_MIS_PRED_RETIRED/BR_RETIRED"},
      {"grace_branch_mpki",
       {{"BR_MIS_PRED_RETIRED", 8e6}, {"INST_RETIRED", 3e9}},
       2e9,
       8.0 / 3,  // 2.666...
       "by hand: (BR_MIS_PRED_RETIRED/INST_RETIRED) * 1000"},
  };
}

}  // namespace pmukit::test

using pmukit::test::catalog;

namespace {

// The event a metric variable is counted with, as the catalog binds it ("event=0x8").
std::string event_of(const char* metric, const char* variable) {
  for (const auto& b : catalog().at(metric).events())
    if (b.variable == variable) return b.events.at(0);
  return "";
}

}  // namespace

// Event numbers from the Arm Architecture Reference Manual's PMUv3 common events, as Linux
// tools/perf/pmu-events/arch/arm64/common-and-microarch.json lists them; FP_SCALE_OPS_SPEC and
// FP_FIXED_OPS_SPEC are the guide's own "perf record -e r80C0 -e r80C1".
TEST(GraceCoreMetrics, EventsAreTheArmPmuv3Numbers) {
  EXPECT_EQ(event_of("grace_ipc", "INST_RETIRED"), "event=0x8");
  EXPECT_EQ(event_of("grace_ipc", "CPU_CYCLES"), "event=0x11");
  EXPECT_EQ(event_of("grace_retiring", "STALL_SLOT"), "event=0x3f");
  EXPECT_EQ(event_of("grace_flops", "FP_SCALE_OPS_SPEC"), "event=0x80c0");
  EXPECT_EQ(event_of("grace_flops", "FP_FIXED_OPS_SPEC"), "event=0x80c1");
  EXPECT_EQ(event_of("grace_l2_cache_miss_ratio", "L2D_CACHE_REFILL"), "event=0x17");
  EXPECT_EQ(event_of("grace_ll_cache_read_hit_ratio", "LL_CACHE_MISS_RD"), "event=0x37");
  EXPECT_EQ(event_of("grace_branch_mpki", "BR_MIS_PRED_RETIRED"), "event=0x22");
  EXPECT_EQ(event_of("grace_sve_percent", "SVE_INST_SPEC"), "event=0x8006");
}

// All 45, on the core PMU's perf name; none needs a filter term.
TEST(GraceCoreMetrics, FortyFiveMetricsOnTheCorePmu) {
  std::size_t n = 0;
  for (const auto& m : catalog().metrics())
    if (m.spec().family == "grace_core") {
      ++n;
      EXPECT_TRUE(m.applies_to("armv8_pmuv3_0")) << m.name();
      EXPECT_TRUE(m.spec().required_terms.empty()) << m.name();
    }
  EXPECT_EQ(n, 45u);
}
