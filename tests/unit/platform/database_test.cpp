// The built-in platform database parses each part on first use: it must answer exactly as the
// whole database parsed at once and cross-checked, and a file whose keys belong to another part
// (which lazy parsing would never reach) is an error naming it.
#include <gtest/gtest.h>

#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

using namespace pmukit;
using platform::Database;

TEST(PlatformDatabase, BuiltinFilesAllParseAndCrossCheck) {
  EXPECT_NO_THROW(Database::from_files(Database::builtin_files()));
}

TEST(PlatformDatabase, LazyBuiltinAnswersAsTheWholeDatabase) {
  const Database whole = Database::from_files(Database::builtin_files());
  const Database& lazy = Database::builtin();
  ASSERT_EQ(lazy.cpus().size(), whole.cpus().size());
  for (std::size_t i = 0; i < whole.cpus().size(); ++i) {
    const auto& c = whole.cpus()[i];
    EXPECT_EQ(lazy.cpus()[i].name, c.name);
    if (!c.intel_uncore.empty()) {
      ASSERT_TRUE(lazy.intel_uncore(c.intel_uncore)) << c.name;
      const auto* u = lazy.intel_uncore(c.intel_uncore);
      EXPECT_EQ(u->box_types.size(), whole.intel_uncore(c.intel_uncore)->box_types.size());
      for (const auto& [type, box] : u->box_types) {
        // The kernel's constraint table a box type names is resolved in the lazy database too.
        const auto& whole_box = whole.intel_uncore(c.intel_uncore)->box_types.at(type);
        ASSERT_EQ(box.constraints.has_value(), whole_box.constraints.has_value()) << c.name << " type " << type;
        if (box.constraints) {
          EXPECT_EQ(box.constraints->name, whole_box.constraints->name);
        }
        ASSERT_TRUE(lazy.pmu_kind(box.pmu_kind)) << box.pmu_kind;
        EXPECT_EQ(lazy.pmu_kind(box.pmu_kind)->formats, whole.pmu_kind(box.pmu_kind)->formats);
      }
    }
    if (!c.iio_map.empty()) {
      EXPECT_TRUE(lazy.iio_map(c.iio_map)) << c.name;
    }
  }
  // Each SoC section asked for alone holds what the whole database holds.
  const auto& whole_soc = whole.soc();
  EXPECT_EQ(lazy.soc(platform::SocSection::RcMaps).rc_maps.size(), whole_soc.rc_maps.size());
  EXPECT_EQ(lazy.soc(platform::SocSection::T410Blocks).t410_blocks.size(), whole_soc.t410_blocks.size());
  EXPECT_EQ(lazy.soc(platform::SocSection::CoreSight).coresight.has_value(), whole_soc.coresight.has_value());
  EXPECT_EQ(lazy.soc(platform::SocSection::DesignWare).dwc.has_value(), whole_soc.dwc.has_value());
  EXPECT_EQ(lazy.soc(platform::SocSection::Cmn).cmn.has_value(), whole_soc.cmn.has_value());
  // Every constraint table resolves lazily to the same rules.
  for (const auto& name :
       {"icx_uncore_iio_constraints", "skx_uncore_chabox_constraints", "spr_uncore_m2pcie_constraints"}) {
    ASSERT_TRUE(lazy.counter_constraints(name)) << name;
    EXPECT_EQ(lazy.counter_constraints(name)->rules.size(), whole.counter_constraints(name)->rules.size());
  }
  // Every PMU kind the SoC data names resolves in both.
  const auto& soc = lazy.soc();
  if (soc.dwc) {
    ASSERT_TRUE(lazy.pmu_kind(soc.dwc->pmu_kind));
    EXPECT_EQ(lazy.pmu_kind(soc.dwc->pmu_kind)->events.size(), whole.pmu_kind(soc.dwc->pmu_kind)->events.size());
  }
  for (const auto& b : soc.t410_blocks) EXPECT_TRUE(lazy.pmu_kind(b.pmu_kind)) << b.pmu_kind;
  EXPECT_EQ(lazy.pmu_kind("no_such_kind"), nullptr);
}
