// platforms/index.json names the file of each Intel uncore table, IIO map, constraint table and
// SoC section, so the built-in database parses only what a lookup needs: the index must say
// exactly what the files define, reach every file, and a lookup must parse no other file.
#include <algorithm>

#include <gtest/gtest.h>

#include "pmukit/platform/database.h"
#include "pmukit/platform/embedded.h"
#include "pmukit/platform/platform_index.h"
#include "pmukit/util/error.h"

using namespace pmukit;
using platform::Database;
using platform::PlatformIndex;
using platform::SocSection;

namespace {

PlatformIndex builtin_index() {
  auto text = platform::find_embedded(PlatformIndex::kPath);
  EXPECT_TRUE(text.has_value());
  return PlatformIndex::parse(text.value_or("{}"));
}

// Not the CPU table (always parsed whole) and not pmus/ (found by the kinds in each file's text).
bool indexed_directory(const std::string& path) {
  return path != "cpus.json" && !path.starts_with("pmus/");
}

// The database's files and perf's uncore event lists (platforms/perfmon/, which the index names
// for the events layer).
std::vector<std::pair<std::string, std::string>> indexed_files() {
  auto files = Database::builtin_files();
  for (const auto& f : platform::embedded_files())
    if (f.path.starts_with("perfmon/")) files.emplace_back(std::string(f.path), std::string(f.data));
  return files;
}

const char* kIntelX = R"({"name": "x", "description": "X", "unnamed_pmu": "k", "box_types": []})";
const char* kRcMaps = R"({"pcie_rc_maps": [{"name": "r", "method": "domain", "vendor": "0x10de",
  "root_port_devices": [1], "socket_shift": 4, "rp_mask": "0xf", "max_rp": 9, "pmus": []}]})";

}  // namespace

TEST(PlatformIndex, AgreesWithWhatTheBuiltinFilesDefine) {
  const PlatformIndex index = builtin_index();
  const PlatformIndex found = PlatformIndex::of_files(indexed_files());
  EXPECT_EQ(index.intel_uncore, found.intel_uncore);
  EXPECT_EQ(index.perfmon_events, found.perfmon_events);
  EXPECT_EQ(index.iio_maps, found.iio_maps);
  EXPECT_EQ(index.counter_constraints, found.counter_constraints);
  EXPECT_EQ(index.soc, found.soc);
  EXPECT_TRUE(index == found);
}

TEST(PlatformIndex, ReachesEveryIntelAndSocFileAndNamesNoOther) {
  const auto indexed = builtin_index().files();
  std::vector<std::string> expected;
  for (const auto& [path, text] : indexed_files())
    if (indexed_directory(path)) expected.push_back(path);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(indexed, expected);
  // Each Intel CPU model's tables, and every SoC section, are in the index.
  const auto index = builtin_index();
  const Database whole = Database::from_files(Database::builtin_files());
  for (const auto& c : whole.cpus()) {
    if (!c.intel_uncore.empty()) {
      EXPECT_TRUE(index.intel_uncore.count(c.intel_uncore)) << c.name;
    }
    if (!c.iio_map.empty()) {
      EXPECT_TRUE(index.iio_maps.count(c.iio_map)) << c.name;
    }
  }
  // Every model the index gives perf's uncore events is a CPU model pmukit recognises.
  for (const auto& entry : index.perfmon_events) {
    const std::string& model = entry.first;
    EXPECT_TRUE(std::any_of(whole.cpus().begin(), whole.cpus().end(), [&](const auto& c) { return c.name == model; }))
        << model;
  }
  for (auto section : PlatformIndex::kSocSections) EXPECT_TRUE(index.soc.count(section)) << section;
}

TEST(PlatformIndex, OfFilesFindsEachDefinitionInItsFile) {
  const auto index = PlatformIndex::of_files({
      {"intel/x.json", kIntelX},
      {"intel/iio_ab.json", R"({"iio_maps": [{"name": "a"}, {"name": "b"}]})"},
      {"intel/c.json", R"({"counter_constraints": [{"name": "t"}]})"},
      {"vendor/two.json", R"({"cmn": {}, "t410_blocks": []})"},
      {"vendor/rc.json", kRcMaps},
      {"pmus/p.json", R"({"pmus": []})"},
      {"perfmon/g_uncore_events.json", R"({"cpu_models": ["g", "g-d"], "Events": []})"},
  });
  EXPECT_EQ(index.intel_uncore, (PlatformIndex::Files{{"x", "intel/x.json"}}));
  EXPECT_EQ(index.iio_maps, (PlatformIndex::Files{{"a", "intel/iio_ab.json"}, {"b", "intel/iio_ab.json"}}));
  EXPECT_EQ(index.counter_constraints, (PlatformIndex::Files{{"t", "intel/c.json"}}));
  using Soc = decltype(index.soc);
  EXPECT_EQ(
      index.soc,
      (Soc{{"cmn", {"vendor/two.json"}}, {"pcie_rc_maps", {"vendor/rc.json"}}, {"t410_blocks", {"vendor/two.json"}}}));
  EXPECT_EQ(index.perfmon_events,
            (PlatformIndex::Files{{"g", "perfmon/g_uncore_events.json"}, {"g-d", "perfmon/g_uncore_events.json"}}));
  EXPECT_EQ(index.files(),
            (std::vector<std::string>{"intel/c.json", "intel/iio_ab.json", "intel/x.json",
                                      "perfmon/g_uncore_events.json", "vendor/rc.json", "vendor/two.json"}));
}

TEST(PlatformIndex, ANameDefinedInTwoFilesIsAnError) {
  try {
    PlatformIndex::of_files(
        {{"intel/a.json", R"({"iio_maps": [{"name": "m"}]})"}, {"intel/b.json", R"({"iio_maps": [{"name": "m"}]})"}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("platforms/intel/b.json: iio_maps 'm' is also defined in platforms/intel/a.json"),
        std::string::npos)
        << e.what();
  }
}

TEST(PlatformIndex, ParseRejectsWhatIsNotAnIndex) {
  EXPECT_THROW(PlatformIndex::parse(R"({"soc": {"gpu": ["a.json"]}})"), Error);
  EXPECT_THROW(PlatformIndex::parse(R"({"intel_uncore": {"x": 1}})"), Error);
  EXPECT_THROW(PlatformIndex::parse("{"), Error);
}

// The other platform's file is not JSON at all: a lookup that parsed it would throw.
TEST(PlatformIndex, ALookupParsesOnlyTheFileTheIndexNames) {
  const Database db = Database::on_demand({
      {"index.json", R"({"intel_uncore": {"x": "intel/x.json", "y": "intel/y.json"},
                         "soc": {"pcie_rc_maps": ["nvidia/rc.json"], "coresight": ["coresight/c.json"]}})"},
      {"intel/x.json", kIntelX},
      {"intel/y.json", "not json"},
      {"nvidia/rc.json", kRcMaps},
      {"coresight/c.json", "not json"},
  });
  ASSERT_TRUE(db.intel_uncore("x"));
  EXPECT_EQ(db.intel_uncore("x")->description, "X");
  EXPECT_EQ(db.intel_uncore("z"), nullptr);  // not in the index: no file parsed
  ASSERT_EQ(db.soc(SocSection::RcMaps).rc_maps.size(), 1u);
  EXPECT_EQ(db.soc(SocSection::RcMaps).rc_maps[0].max_rp, 9u);
  EXPECT_FALSE(db.soc(SocSection::RcMaps).coresight.has_value());
  EXPECT_THROW(db.intel_uncore("y"), Error);
  EXPECT_THROW(db.soc(SocSection::CoreSight), Error);
}

// perf's event lists are handed out as text for the events layer; the database parses none of them.
TEST(PlatformIndex, PerfmonEventFilesAreHandedOutUnparsed) {
  const Database db = Database::on_demand({
      {"index.json", R"({"perfmon_events": {"x": "perfmon/x.json", "y": "perfmon/y.json", "z": "perfmon/z.json"}})"},
      {"perfmon/x.json", R"({"cpu_models": ["x"], "Events": []})"},
      {"perfmon/y.json", "not json"},
  });
  auto x = db.perfmon_events_file("x");
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->path, "perfmon/x.json");
  EXPECT_EQ(x->text, R"({"cpu_models": ["x"], "Events": []})");
  EXPECT_EQ(db.perfmon_events_file("y")->text, "not json");
  EXPECT_FALSE(db.perfmon_events_file("w").has_value());
  EXPECT_THROW(db.perfmon_events_file("z"), Error);  // the index names a file that is not there
  EXPECT_TRUE(db.cpus().empty());
  // The built-in index names a file for the bundled Intel server models.
  for (const char* model : {"spr", "emr", "gnr", "srf"})
    EXPECT_TRUE(Database::builtin().perfmon_events_file(model).has_value()) << model;
}

TEST(PlatformIndex, AnIndexEntryThatItsFileDoesNotDefineIsAnError) {
  const Database db = Database::on_demand({
      {"index.json", R"({"intel_uncore": {"w": "intel/x.json"}, "iio_maps": {"m": "intel/x.json"}})"},
      {"intel/x.json", kIntelX},
  });
  try {
    db.intel_uncore("w");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "platforms/index.json: says 'w' is defined in platforms/intel/x.json, which does not define it");
  }
  EXPECT_THROW(db.iio_map("m"), Error);
}
