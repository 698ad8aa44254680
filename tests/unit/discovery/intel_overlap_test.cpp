// No two discovered Intel units may claim one register: a table that places a box on another box's
// block is reported with both names (an early gnr-2s description put I/O-die IIO boxes at MSR
// 0x2900, which was also a compute die's mdf_sbo boxes), and the bundled machines have none.
#include <gtest/gtest.h>

#include <fstream>

#include "discovered.h"
#include "support/machines.h"

using namespace pmukit;
using json = nlohmann::json;
using test::Discovered;
using test::noted;

namespace {

json msr_box(int type, const std::string& ids, const std::string& box_ctl) {
  return json{{"type", type},  {"ids", ids},      {"access", "msr"}, {"box_ctl", box_ctl}, {"id_stride", "0x10"},
              {"num_regs", 4}, {"ctl_offset", 8}, {"ctr_offset", 1}, {"width", 48}};
}

}  // namespace

// An IIO box whose block starts inside CHA 1's (box control 0x2010, controls 0x2012-0x2015,
// counters 0x2018-0x201b, TID filter 0x201e): its counters at 0x2015-0x2018 are CHA 1's last
// control and first counter.
TEST(IntelOverlap, TwoUnitsOnOneMsrBlockAreNamedTogether) {
  Discovered d(test::spr_every_access_type(json::array({msr_box(1, "0", "0x2014")})));
  ASSERT_TRUE(d.unit("uncore_iio") && d.unit("uncore_cha_1")) << d.warnings();
  EXPECT_TRUE(d.warned("uncore_cha_1 and uncore_iio claim the same register (MSR 0x2014 (CPU 0))")) << d.warnings();
  EXPECT_TRUE(noted(*d.unit("uncore_iio"), "shares MSR 0x2014 (CPU 0) with uncore_cha_1"));
  EXPECT_TRUE(noted(*d.unit("uncore_cha_1"), "shares MSR 0x2014 (CPU 0) with uncore_iio"));
  EXPECT_FALSE(d.warned("uncore_cha_0 and")) << d.warnings();
}

// Boxes side by side (CHA 1 ends at its filter 0x201e; an IIO box at 0x2020) share nothing.
TEST(IntelOverlap, AdjacentBlocksAreNotReported) {
  Discovered d(test::spr_every_access_type(json::array({msr_box(1, "0-1", "0x2020")})));
  ASSERT_TRUE(d.unit("uncore_iio_0") && d.unit("uncore_iio_1")) << d.warnings();
  EXPECT_FALSE(d.warned("claim the same register")) << d.warnings();
}

// The bundled gnr-2s as it was before its I/O dies' IIO boxes moved to MSR 0x3000: at 0x2900 they
// ran into the second compute die's mdf_sbo boxes (0x28a0 + 0x10 * id), and pmu-sim stepped the
// shared block twice.
TEST(IntelOverlap, TheOldGnr2sIioBoxesOnMdfSboAreReported) {
  std::ifstream in(PMUKIT_SOURCE_DIR "/platforms/machines/gnr-2s.json");
  json spec = json::parse(in);
  int moved = 0;
  for (auto& table : spec.at("intel_tables"))
    for (auto& u : table.at("units"))
      if (u.at("type") == 1 && u.at("box_ctl") == "0x3000") u["box_ctl"] = "0x2900", ++moved;
  ASSERT_GT(moved, 0);
  Discovered d(spec);
  bool named_both = false;
  for (const auto& w : d.r.inventory.warnings)
    named_both =
        named_both || (w.find("uncore_iio_") != std::string::npos && w.find("uncore_mdf_sbo_") != std::string::npos &&
                       w.find("claim the same register (MSR 0x29") != std::string::npos);
  EXPECT_TRUE(named_both) << d.warnings();
}

TEST(IntelOverlap, BundledIntelMachinesHaveNone) {
  for (const char* name : {"spr-2s", "gnr-2s"}) {
    Discovered d{std::string(name)};
    EXPECT_FALSE(d.warned("claim the same register")) << name << "\n" << d.warnings();
  }
}
