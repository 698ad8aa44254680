// The Intel IIO mapping data: every model PCM's pcm-iio maps has a scheme, the formats the
// filters name are the kernel's, and the loader rejects tables that cannot be right, naming them.
#include <gtest/gtest.h>

#include "pmukit/platform/database.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"
#include "support/platform_files.h"

using namespace pmukit;
using platform::Database;

namespace {

std::string load_error(const std::string& iio) {
  const std::string kind = R"({"pmus": [{"kind": "iio", "formats": {"event": "config:0-7", "ch_mask": "config:36-43",
                             "fc_mask": "config:44-46"}, "events": {}}]})";
  return test::database_load_error({{"pmus.json", kind}, {"intel/iio.json", iio}});
}

std::string scheme(const std::string& tables, const std::string& layouts = R"({"pcie": [{"root_ports": [0, 3]}]})") {
  return R"({"iio_maps": [{"name": "t", "description": "test", "route": "sad_control", "locator": {"device": "0x09a2"},
           "sad_control": "0x3f4", "socket": {"from": "sad_control"}, "pmu": "uncore_iio_{pmu}", "pmu_kind": "iio",
           "filter": {"ch_mask": "ch_mask", "fc_mask": "fc_mask", "fc_mask_value": 7},
           "example": {"event": "event=0x83", "what": "x"}, "layouts": )" +
         layouts + R"(, "tables": )" + tables + "}]}";
}

}  // namespace

TEST(IioData, EveryModelPcmIioMapsHasAScheme) {
  const auto& db = Database::builtin();
  // Family 6 models (Linux intel-family.h): SKYLAKE_X 85, ICELAKE_X 106, ICELAKE_D 108,
  // ATOM_TREMONT_D 134, SAPPHIRERAPIDS_X 143, EMERALDRAPIDS_X 207, GRANITERAPIDS_X 173,
  // ATOM_CRESTMONT_X 175 (PCM IPlatformMapping::getPlatformMapping).
  const std::pair<unsigned, const char*> models[] = {{85, "skx"},  {106, "icx"}, {108, "icx-d"}, {134, "snr"},
                                                     {143, "spr"}, {207, "emr"}, {173, "gnr"},   {175, "gnr"}};
  for (const auto& [model, name] : models) {
    const auto* cpu = db.match_cpu("GenuineIntel", 6, model);
    ASSERT_NE(cpu, nullptr) << model;
    EXPECT_EQ(cpu->iio_map, name) << model;
    ASSERT_NE(db.iio_map(name), nullptr) << name;
  }
}

TEST(IioData, FilterFormatsAreTheKernels) {
  const auto& db = Database::builtin();
  // Linux uncore_snbep.c: skx_uncore_iio_formats_attr (ch_mask config:36-43, fc_mask config:44-46);
  // snr_uncore_iio_formats_attr, used by ICX, SPR and GNR IIO (ch_mask2 config:36-47, fc_mask2
  // config:48-50).
  const std::pair<const char*, std::pair<const char*, const char*>> want[] = {
      {"skx", {"config:36-43", "config:44-46"}},
      {"icx", {"config:36-47", "config:48-50"}},
      {"snr", {"config:36-47", "config:48-50"}},
      {"spr", {"config:36-47", "config:48-50"}},
      {"gnr", {"config:36-47", "config:48-50"}}};
  for (const auto& [name, formats] : want) {
    const auto* s = db.iio_map(name);
    const auto* kind = db.pmu_kind(s->pmu_kind);
    ASSERT_NE(kind, nullptr) << name;
    EXPECT_EQ(kind->formats.at("ch_mask"), formats.first) << name;
    EXPECT_EQ(kind->formats.at("fc_mask"), formats.second) << name;
    EXPECT_EQ(s->fc_mask, 7u) << name;  // PCM opCode files: fc_mask=0x7 on every part event
  }
  // SPR and GNR discovery units of type 1 use the same kind (spr_uncore_iio, gnr_uncores[1]).
  EXPECT_EQ(db.intel_uncore("spr")->box(1)->pmu_kind, db.iio_map("spr")->pmu_kind);
  EXPECT_EQ(db.intel_uncore("gnr")->box(1)->pmu_kind, db.iio_map("gnr")->pmu_kind);
}

TEST(IioData, LoaderAcceptsAGoodSchemeAndRejectsBadOnesNamingThem) {
  EXPECT_EQ(load_error(scheme(R"([{"name": "a", "stacks": [{"entry": 0, "pmu": 1, "name": "P", "layout": "pcie"}]}])")),
            "");
  EXPECT_NE(load_error(scheme(R"([{"name": "a", "stacks": [{"entry": 0, "pmu": 1, "name": "P", "layout": "nope"}]}])"))
                .find("table a entry 0: layout 'nope' is not defined"),
            std::string::npos);
  EXPECT_NE(load_error(scheme(R"([{"name": "a", "stacks": [{"entry": 0, "pmu": 1, "name": "P"},
                                                           {"entry": 1, "pmu": 1, "name": "Q"}]}])"))
                .find("PMU 1 given to two stacks"),
            std::string::npos);
  EXPECT_NE(load_error(scheme(R"([{"name": "a", "stacks": [{"entry": 9, "part_of": 8, "name": "P"}]}])"))
                .find("part_of 8 names no stack with a PMU"),
            std::string::npos);
  // Part 9 has no bit in an 8-bit ch_mask.
  EXPECT_NE(load_error(scheme(R"([{"name": "a", "stacks": [{"entry": 0, "pmu": 1, "name": "P", "layout": "x"}]}])",
                              R"({"x": [{"devs": [1, 1], "parts": [9]}]})"))
                .find("part 9 has no bit in ch_mask (8 bits)"),
            std::string::npos);
  EXPECT_NE(load_error(scheme(R"([{"name": "a", "stacks": []}, {"name": "b", "stacks": []}])"))
                .find("several tables but no \"chop\" register"),
            std::string::npos);
  EXPECT_NE(load_error(scheme(R"([{"name": "a", "stacks": []}])", R"({"x": [{"devs": [3, 1], "parts": [0]}]})"))
                .find("range 3-1 is reversed"),
            std::string::npos);
}
