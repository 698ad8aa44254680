// The Intel uncore event constraint tables: the built-in ones hold Linux uncore_snbep.c's values
// (written here from the kernel source), box types name them, and the loader rejects bad tables
// naming the file.
#include <gtest/gtest.h>

#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"
#include "support/platform_files.h"

using namespace pmukit;
using platform::Database;

namespace {

std::string load_error(const std::vector<std::pair<std::string, std::string>>& files) {
  return test::database_load_error(files);
}

const char* kPmus = R"({"pmus": [{"kind": "k", "formats": {"event": "config:0-7"}, "events": {}}]})";

}  // namespace

// icx_uncore_iio_constraints: UNCORE_EVENT_CONSTRAINT(0x02, 0x3), (0x03, 0x3), (0x83, 0x3),
// (0x88, 0xc), (0xc0, 0xc), (0xc5, 0xc), (0xd5, 0xc); matched on the event select only.
TEST(CounterConstraints, IioTableIsTheKernels) {
  const auto* t = Database::builtin().counter_constraints("icx_uncore_iio_constraints");
  ASSERT_NE(t, nullptr);
  const std::pair<std::uint64_t, std::uint32_t> want[] = {{0x02, 0x3}, {0x03, 0x3}, {0x83, 0x3}, {0x88, 0xc},
                                                          {0xc0, 0xc}, {0xc5, 0xc}, {0xd5, 0xc}};
  ASSERT_EQ(t->rules.size(), std::size(want));
  for (const auto& [event, counters] : want) EXPECT_EQ(t->counters_for(0x0007001000000400 | event), counters);
  EXPECT_EQ(t->counters_for(0x01), std::nullopt);  // clockticks: any counter
}

// spr_uncore_iio and spr_uncore_chabox carry their tables, and gnr_uncores[] reuses both;
// spr_uncore_m2pcie has its own; an IMC box has none.
TEST(CounterConstraints, BoxTypesNameTheirKernelTables) {
  const auto& db = Database::builtin();
  for (const char* uncore : {"spr", "gnr"}) {
    const auto* u = db.intel_uncore(uncore);
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->box(1)->constraints->name, "icx_uncore_iio_constraints") << uncore;
    EXPECT_EQ(u->box(0)->constraints->counters_for(0x36), 0x1u) << uncore;  // skx_uncore_chabox_constraints
    EXPECT_EQ(u->box(0)->constraints->counters_for(0x11), 0x1u) << uncore;
    EXPECT_FALSE(u->box(6)->constraints) << uncore;
  }
  EXPECT_EQ(db.intel_uncore("spr")->box(3)->constraints->counters_for(0x2d), 0x3u);
}

TEST(CounterConstraints, BadTablesAreRefusedNamingTheFile) {
  EXPECT_NE(load_error({{"pmus.json", kPmus}, {"intel/x.json", R"({"name": "x", "description": "", "unnamed_pmu": "k",
                           "box_types": [{"type": 1, "name": "iio", "pmu": "k", "counter_constraints": "nope"}]})"}})
                .find("box type 1 names unknown counter_constraints 'nope'"),
            std::string::npos);
  EXPECT_NE(load_error({{"intel/c.json", R"({"counter_constraints": [{"name": "t", "source": "s",
                           "rules": [{"event": "0x183", "counters": "0x3"}]}]})"}})
                .find("platforms/intel/c.json counter_constraints t: rule for event 0x183"),
            std::string::npos);
  EXPECT_NE(load_error({{"intel/c.json", R"({"counter_constraints": [{"name": "t", "source": "s",
                           "rules": [{"event": "0x83", "counters": "0"}]}]})"}})
                .find("no counter"),
            std::string::npos);
}
