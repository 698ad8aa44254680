// AMD uncore discovery (families/amd): units made as Linux arch/x86/events/amd/uncore.c makes its
// PMUs, from the cpuinfo flags it tests, the L3 each CPU shares and CPUID 0x80000022. Expected
// counts and MSRs are worked out here from the kernel: NUM_COUNTERS_L3 6 at MSR_F16H_L2I_PERF_CTL
// 0xc0010230, the DF's 4 (or NumDfPmc, EBX[15:10]) at MSR_F15H_NB_PERF_CTL 0xc0010240, and per
// active UMC NumUmcPmc (EBX[21:16]) / popcount(ECX) at MSR_F19H_UMC_PERF_CTL 0xc0010800 + slot *
// counters * 2, amd_umc_N numbered across sockets.
#include <gtest/gtest.h>

#include "discovered.h"
#include "pmukit/families/amd/amd_unit.h"
#include "pmukit/perf/unit_mapping.h"

using namespace pmukit;
using discovery::AmdUnit;

namespace {

nlohmann::json spec(const std::string& flags, const nlohmann::json& amd, unsigned model = 0x11) {
  return {{"name", "amd-test"},
          {"cpuinfo", {{"vendor", "AuthenticAMD"}, {"family", 25}, {"model", model}, {"flags", flags}}},
          {"topology", {{"sockets", 2}, {"dies_per_socket", 1}, {"cpus_per_die", 8}}},
          {"msr_devices", true},
          {"amd_uncore", amd}};
}

const char* kZen4Flags = "fpu tsc msr topoext perfctr_core perfctr_nb perfctr_llc perfmon_v2";

}  // namespace

TEST(AmdDiscovery, Genoa2sHasAnL3PerCcxADfPerSocketAndAUmcPerActiveChannel) {
  test::Discovered d(std::string("genoa-2s"));
  EXPECT_EQ(d.r.inventory.platform, "zen4");
  std::size_t l3 = 0, df = 0, umc = 0;
  for (const auto& u : d.r.inventory.units) {
    const auto* a = u.as<AmdUnit>();
    if (!a) continue;  // the IOMMUs (amd_iommu_test.cpp)
    l3 += a->kind == AmdUnit::Kind::L3, df += a->kind == AmdUnit::Kind::Df, umc += a->kind == AmdUnit::Kind::Umc;
  }
  EXPECT_EQ(l3, 24u);  // 12 CCXs per socket
  EXPECT_EQ(df, 2u);
  EXPECT_EQ(umc, 24u);  // ECX 0xfff on each socket
  const auto* umc13 = d.unit("amd_umc_13");
  ASSERT_NE(umc13, nullptr);
  EXPECT_EQ(umc13->socket, 1);
  EXPECT_EQ(umc13->num_counters, 4u);                      // 48 / 12
  EXPECT_EQ(umc13->as<AmdUnit>()->msr_base, 0xc0010808u);  // second UMC of socket 1: slot 1
  EXPECT_EQ(umc13->as<AmdUnit>()->cpu, 48);                // socket 1 starts at CPU 48
  const auto* df0 = d.unit("amd_df");
  ASSERT_NE(df0, nullptr);
  EXPECT_EQ(df0->num_counters, 16u);  // NumDfPmc
  EXPECT_EQ(df0->pmu_kind, "amd_df_zen4");
  EXPECT_TRUE(d.r.inventory.warnings.empty()) << d.warnings();
}

TEST(AmdDiscovery, L3UnitsFollowCacheIndex3AndReadOnTheFirstCpuOfTheCcx) {
  test::Discovered d(
      spec(kZen4Flags,
           {{"cpus_per_ccx", 4}, {"ext_perfmon", {{"num_df_pmc", 8}, {"num_umc_pmc", 8}, {"active_umcs", "0x5"}}}}));
  std::vector<std::pair<int, int>> l3;  // (socket, reading CPU)
  for (const auto& u : d.r.inventory.units)
    if (u.as<AmdUnit>()->kind == AmdUnit::Kind::L3) l3.emplace_back(u.socket, u.as<AmdUnit>()->cpu);
  EXPECT_EQ(l3, (std::vector<std::pair<int, int>>{{0, 0}, {0, 4}, {1, 8}, {1, 12}}));
  const auto* umc1 = d.unit("amd_umc_1");
  ASSERT_NE(umc1, nullptr);
  EXPECT_EQ(umc1->as<AmdUnit>()->umc_channel, 2);  // the second set bit of 0x5
  EXPECT_EQ(umc1->as<AmdUnit>()->msr_base, 0xc0010808u);
  EXPECT_EQ(umc1->num_counters, 4u);  // 8 / popcount(0x5)
}

// Milan (Zen 3): no PerfMonV2, so the kernel's fixed 4 DF counters and no UMC PMU.
TEST(AmdDiscovery, Milan2sHasNoUmcAndFourDfCounters) {
  test::Discovered d(std::string("milan-2s"));
  EXPECT_EQ(d.r.inventory.platform, "zen3");
  const auto* df = d.unit("amd_df");
  ASSERT_NE(df, nullptr);
  EXPECT_EQ(df->num_counters, 4u);
  EXPECT_EQ(df->pmu_kind, "amd_df_zen3");
  EXPECT_EQ(d.unit("amd_umc_0"), nullptr);
  EXPECT_EQ(d.r.inventory.units.size(), 16u + 2u);  // 8 CCXs per socket
}

// What a guest shows (this project's CI VM is one): the part is named, no unit is invented, and
// the warnings say which flag hides the counters.
TEST(AmdDiscovery, AGuestWithoutPerfctrFlagsGetsNoUnitsAndSaysWhy) {
  test::Discovered d(spec("fpu tsc msr topoext hypervisor", {{"cpus_per_ccx", 4}}));
  EXPECT_EQ(d.r.inventory.platform, "zen4");
  EXPECT_TRUE(d.r.inventory.units.empty());
  EXPECT_TRUE(d.warned("lists neither perfctr_llc nor perfctr_nb")) << d.warnings();
  EXPECT_TRUE(d.warned("as a hypervisor's guest CPU usually does")) << d.warnings();
  EXPECT_TRUE(d.warned("lacks perfmon_v2: no UMC")) << d.warnings();
}

// PerfMonV2 claimed, but the CPUID device answers below 0x80000022: no UMC, DF with 4 counters.
TEST(AmdDiscovery, PerfMonV2WithoutTheCpuidLeafKeepsTheKernelsDefaults) {
  test::Discovered d(spec(kZen4Flags, {{"cpus_per_ccx", 8}, {"max_extended_leaf", "0x80000021"}}));
  EXPECT_EQ(d.unit("amd_umc_0"), nullptr);
  ASSERT_NE(d.unit("amd_df"), nullptr);
  EXPECT_EQ(d.unit("amd_df")->num_counters, 4u);
  EXPECT_TRUE(d.warned("CPUID 0x80000022 not read: CPU 0 answers CPUID up to leaf 0x80000021")) << d.warnings();
}

// A CPU model outside every Zen range of Linux amd.c is not given AMD units.
TEST(AmdDiscovery, AnUnknownModelIsNotGuessed) {
  test::Discovered d(spec(kZen4Flags, {{"cpus_per_ccx", 4}}, 0xf0));
  EXPECT_EQ(d.r.inventory.platform, "");
  EXPECT_TRUE(d.r.inventory.units.empty());
}

// The kernel's amd_uncore PMUs (sysfs, as a machine with the driver loaded shows them) are the
// perf backend's route to the same units: each unit maps to the PMU of its name, the L3s to
// amd_l3's cpumask (one CPU per CCX), so --backend auto can choose as on every other family.
TEST(AmdDiscovery, UnitsMapToTheKernelsAmdUncorePmus) {
  test::Discovered d(
      spec(kZen4Flags, {{"generation", "zen4"},
                        {"cpus_per_ccx", 4},
                        {"kernel_pmus", true},
                        {"ext_perfmon", {{"num_df_pmc", 8}, {"num_umc_pmc", 8}, {"active_umcs", "0x3"}}}}));
  auto maps = perf::map_units(*d.machine, d.r.inventory);
  ASSERT_EQ(maps.size(), d.r.inventory.units.size());
  std::size_t present = 0;
  for (const auto& m : maps) {
    present += m.present;
    EXPECT_EQ(m.perf, m.unit);
    if (m.unit == "amd_l3") {
      EXPECT_EQ(m.cpumask, (std::vector<int>{0, 4, 8, 12}));
    }
    if (m.unit == "amd_umc_3") {
      EXPECT_EQ(m.cpumask, (std::vector<int>{8}));
    }
  }
  EXPECT_EQ(present, maps.size());  // 4 L3, 2 DF, 4 UMC
  EXPECT_EQ(maps.size(), 10u);
  auto format = d.machine->files().read_line(d.machine->param("events.path") / "amd_df" / "format" / "umask");
  ASSERT_TRUE(format);
  EXPECT_EQ(*format, "config:8-15,24-27");  // uncore.c umask12, PerfMonV2 DF
}

// amd_uncore_init returns -ENODEV without X86_FEATURE_TOPOEXT: no unit, and a warning naming it.
TEST(AmdDiscovery, WithoutTopoextNothingIsMade) {
  test::Discovered d(spec("fpu tsc msr perfctr_core perfctr_nb perfctr_llc perfmon_v2", {{"cpus_per_ccx", 4}}));
  EXPECT_TRUE(d.r.inventory.units.empty());
  EXPECT_TRUE(d.warned("lacks topoext")) << d.warnings();
}

// CPUID saying 0 DF counters: the kernel registers no amd_df (amd_uncore_df_ctx_init), nor does pmukit.
TEST(AmdDiscovery, NoDfUnitWithZeroCounters) {
  test::Discovered d(
      spec(kZen4Flags,
           {{"cpus_per_ccx", 8}, {"ext_perfmon", {{"num_df_pmc", 0}, {"num_umc_pmc", 4}, {"active_umcs", "0x1"}}}}));
  EXPECT_EQ(d.unit("amd_df"), nullptr);
  EXPECT_TRUE(d.warned("gives 0 counters: no amd_df unit")) << d.warnings();
  ASSERT_NE(d.unit("amd_umc_1"), nullptr);  // socket 1's only UMC: numbered after socket 0's
  EXPECT_EQ(d.unit("amd_umc_1")->socket, 1);
}
