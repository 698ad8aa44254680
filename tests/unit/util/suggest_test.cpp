// closest_name / near_names / did_you_mean: the "did you mean" hint of misspelt event, term and
// PMU names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pmukit/util/suggest.h"

namespace pmukit {
namespace {

const std::vector<std::string> kNames = {"cas_count_read", "cas_count_write", "clockticks", "uncore_imc",
                                         "uncore_cha",     "event",           "umask",      "edge"};

TEST(ClosestName, OneEditOfEachKind) {
  EXPECT_EQ(closest_name("cas_count_reed", kNames), "cas_count_read");     // substituted
  EXPECT_EQ(closest_name("cas_count_rea", kNames), "cas_count_read");      // deleted
  EXPECT_EQ(closest_name("cas_count_wrrite", kNames), "cas_count_write");  // inserted
  EXPECT_EQ(closest_name("clcokticks", kNames), "clockticks");             // neighbours swapped
  EXPECT_EQ(closest_name("uncore_imx", kNames), "uncore_imc");
  EXPECT_EQ(closest_name("evnt", kNames), "event");
}

TEST(ClosestName, CaseAloneIsTheNearest) {
  EXPECT_EQ(closest_name("UMASK", kNames), "umask");
  EXPECT_EQ(closest_name("Cas_Count_Read", kNames), "cas_count_read");
}

TEST(ClosestName, NothingForAKnownOrAFarWord) {
  EXPECT_EQ(closest_name("umask", kNames), std::nullopt);  // known as written
  EXPECT_EQ(closest_name("bandwidth", kNames), std::nullopt);
  EXPECT_EQ(closest_name("x", kNames), std::nullopt);
  EXPECT_EQ(closest_name("cas", kNames), std::nullopt);  // a prefix is not a misspelling
  EXPECT_EQ(closest_name("anything", {}), std::nullopt);
}

TEST(ClosestName, TheAllowanceGrowsWithTheWordUpToThree) {
  // A third of the length: "edgg" (4 letters) may differ in 1, "cas_count_rxxd" (14) in 3, not 4.
  EXPECT_EQ(closest_name("edgg", kNames), "edge");
  EXPECT_EQ(closest_name("ecgg", kNames), std::nullopt);
  EXPECT_EQ(closest_name("cas_cxunt_rxxd", kNames), "cas_count_read");
  EXPECT_EQ(closest_name("cxs_cxunt_rxxd", kNames), std::nullopt);
}

TEST(ClosestName, TheNearestWinsAndTheFirstOnATie) {
  EXPECT_EQ(closest_name("cas_count_wread", kNames), "cas_count_read");  // 1 edit, against 2 to write
  EXPECT_EQ(closest_name("uncore_ima", kNames), "uncore_imc");           // 1 edit from imc, 2 from cha
  EXPECT_EQ(closest_name("uncore_chc", {"uncore_cha", "uncore_chb"}), "uncore_cha");
}

TEST(NearNames, AnotherGenerationsNameOrAWordCutShortGetsTheNamesThatHoldItsParts) {
  // GNR splits SPR's unc_m_cas_count.rd by scheduler; unc_m_act_count.rd is nearer by letters only.
  const std::vector<std::string> gnr = {"unc_m_act_count.rd", "unc_m_cas_count_sch0.rd_pre_reg",
                                        "unc_m_cas_count_sch0.rd", "unc_m_cas_count_sch1.rd",
                                        "unc_m_cas_count_sch0.wr"};
  EXPECT_EQ(near_names("unc_m_cas_count.rd", gnr, 3),
            (std::vector<std::string>{"unc_m_cas_count_sch0.rd", "unc_m_cas_count_sch1.rd"}));
  EXPECT_EQ(near_names("UNC_M_CAS_COUNT.RD", gnr, 1), (std::vector<std::string>{"unc_m_cas_count_sch0.rd"}));
  EXPECT_EQ(near_names("cas_count", kNames, 3), (std::vector<std::string>{"cas_count_read", "cas_count_write"}));
  // Parts out of order, a one-part word, or a known word: letters decide, or nothing.
  EXPECT_EQ(near_names("count_cas", kNames, 3), std::vector<std::string>{});
  EXPECT_EQ(near_names("evnt", kNames, 3), std::vector<std::string>{"event"});
  EXPECT_EQ(near_names("unc_m_act_count.rd", gnr, 3), std::vector<std::string>{});
}

TEST(DidYouMean, TheHintOrNothing) {
  EXPECT_EQ(did_you_mean("unc_m_cas_count.rd", {"unc_m_cas_count_sch0.rd", "unc_m_cas_count_sch1.rd"}),
            " (did you mean 'unc_m_cas_count_sch0.rd' or 'unc_m_cas_count_sch1.rd'?)");
  EXPECT_EQ(did_you_mean("a_b", {"a_b_1", "a_b_2", "a_b_3", "a_b_4"}), " (did you mean 'a_b_1', 'a_b_2' or 'a_b_3'?)");
  EXPECT_EQ(did_you_mean("clockticsk", kNames), " (did you mean 'clockticks'?)");
  EXPECT_EQ(did_you_mean("bandwidth", kNames), "");
}

}  // namespace
}  // namespace pmukit
