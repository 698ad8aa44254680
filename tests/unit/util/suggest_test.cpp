// closest_name / did_you_mean: the "did you mean" hint of misspelt event, term and PMU names.
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

TEST(DidYouMean, TheHintOrNothing) {
  EXPECT_EQ(did_you_mean("clockticsk", kNames), " (did you mean 'clockticks'?)");
  EXPECT_EQ(did_you_mean("bandwidth", kNames), "");
}

}  // namespace
}  // namespace pmukit
