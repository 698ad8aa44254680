// PMU name patterns (%u, %x as the drivers write them) and the check of event terms against a type.
#include <gtest/gtest.h>

#include "pmukit/metrics/pmu_type.h"

using pmukit::metrics::check_pmu_pattern;
using pmukit::metrics::pmu_name_matches;
using pmukit::metrics::PmuType;

TEST(PmuPattern, DecimalNumbers) {
  EXPECT_TRUE(pmu_name_matches("nvidia_scf_pmu_%u", "nvidia_scf_pmu_0"));
  EXPECT_TRUE(pmu_name_matches("nvidia_scf_pmu_%u", "nvidia_scf_pmu_17"));
  EXPECT_FALSE(pmu_name_matches("nvidia_scf_pmu_%u", "nvidia_scf_pmu_"));
  EXPECT_FALSE(pmu_name_matches("nvidia_scf_pmu_%u", "nvidia_scf_pmu_0a"));
  EXPECT_FALSE(pmu_name_matches("nvidia_scf_pmu_%u", "nvidia_scf_pmu_x"));
  EXPECT_FALSE(pmu_name_matches("uncore_imc_%u", "uncore_imc_free_running_0"));
  EXPECT_FALSE(pmu_name_matches("uncore_imc_%u", "uncore_imc"));
}

TEST(PmuPattern, SeveralNumbersAndPrefixesThatOverlap) {
  EXPECT_TRUE(pmu_name_matches("nvidia_pcie_pmu_%u_rc_%u", "nvidia_pcie_pmu_1_rc_12"));
  EXPECT_FALSE(pmu_name_matches("nvidia_pcie_pmu_%u_rc_%u", "nvidia_pcie_pmu_1"));
  EXPECT_FALSE(pmu_name_matches("nvidia_pcie_pmu_%u", "nvidia_pcie_pmu_1_rc_12"));
  // A number followed by a literal digit needs the matcher to give digits back.
  EXPECT_TRUE(pmu_name_matches("box_%u0", "box_10"));
  EXPECT_TRUE(pmu_name_matches("box_%u0", "box_1230"));
  EXPECT_FALSE(pmu_name_matches("box_%u0", "box_0"));
}

TEST(PmuPattern, HexNumbersAreLowerCaseAsTheKernelPrintsThem) {
  EXPECT_TRUE(pmu_name_matches("dwc_rootport_%x", "dwc_rootport_3018"));
  EXPECT_TRUE(pmu_name_matches("dwc_rootport_%x", "dwc_rootport_1a0f8"));
  EXPECT_FALSE(pmu_name_matches("dwc_rootport_%x", "dwc_rootport_1A0"));
  EXPECT_FALSE(pmu_name_matches("dwc_rootport_%x", "dwc_rootport_"));
  EXPECT_FALSE(pmu_name_matches("%u", "1a"));
}

TEST(PmuPattern, WithoutPlaceholdersItMatchesOnlyItself) {
  EXPECT_TRUE(pmu_name_matches("nvidia_scf_pmu_0", "nvidia_scf_pmu_0"));
  EXPECT_FALSE(pmu_name_matches("nvidia_scf_pmu_0", "nvidia_scf_pmu_01"));
  EXPECT_FALSE(pmu_name_matches("nvidia_scf_pmu_0", "nvidia_scf_pmu_1"));
}

TEST(PmuPattern, MalformedPatternsAreReported) {
  EXPECT_EQ(check_pmu_pattern("nvidia_scf_pmu_%u"), "");
  EXPECT_EQ(check_pmu_pattern("nvidia_pcie_pmu_%u_rc_%u"), "");
  EXPECT_EQ(check_pmu_pattern("x_%d"), "'%d' is not %u or %x");
  EXPECT_EQ(check_pmu_pattern("x_%"), "'%' is not %u or %x");
  EXPECT_EQ(check_pmu_pattern("x-y"), "character '-' cannot be part of a PMU name");
  EXPECT_EQ(check_pmu_pattern(""), "empty PMU pattern");
}

TEST(PmuType, ChecksAliasesAndTermsOfAnEvent) {
  PmuType t;
  t.pattern = "arm_cmn_%u";
  t.terms = {"type", "eventid", "bynodeid", "nodeid"};
  t.events = {"dtc_cycles", "ccla_tx_cxs"};
  EXPECT_EQ(t.check_event("dtc_cycles"), "");
  EXPECT_EQ(t.check_event("type=0x105,eventid=0x22,bynodeid=1,nodeid=413"), "");
  EXPECT_EQ(t.check_event("ccla_tx_cxs, bynodeid=1, nodeid=413"), "");
  EXPECT_EQ(t.check_event("dtc_cycle"), "'dtc_cycle' is not an event of arm_cmn_%u");
  EXPECT_EQ(t.check_event("type=0x105,node=413"), "'node' is not a term of arm_cmn_%u");
  EXPECT_EQ(t.check_event("type=0x105,nodeid=4x"), "'nodeid': '4x' is not a number");
  EXPECT_EQ(t.check_event("type=0x105,,nodeid=1"), "empty term in 'type=0x105,,nodeid=1'");
  EXPECT_EQ(t.check_event(" "), "empty event");
  EXPECT_TRUE(t.matches("arm_cmn_0"));
  EXPECT_TRUE(t.has_term("nodeid"));
  EXPECT_FALSE(t.has_event("cycles"));
}
