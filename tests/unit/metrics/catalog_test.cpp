// Catalog: the embedded files load and index; every kind of broken file is refused with an error
// that names the file and the metric.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "metric_cases.h"
#include "pmukit/metrics/catalog.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using namespace pmukit::metrics;
using nlohmann::json;
using pmukit::test::catalog;

namespace {

json types_file() {
  return json::parse(R"json({
    "schema": "pmukit-pmu-types/1",
    "description": "test types",
    "pmu_types": [{"pattern": "nvidia_cmem_latency_pmu_%u", "description": "CMEM", "source": "test",
                   "terms": ["event"], "events": ["cycles", "rd_req", "rd_cum_outs"]},
                  {"pattern": "nvidia_pcie_pmu_%u", "description": "Grace PCIe", "source": "test",
                   "terms": ["event", "root_port"], "events": ["cycles", "rd_bytes_loc"]}]
  })json");
}

json metrics_file() {
  return json::parse(R"json({
    "schema": "pmukit-metrics/1",
    "family": "test",
    "description": "test metrics",
    "source": "test",
    "metrics": [{"name": "lat", "description": "latency", "unit": "ns", "pmu": "nvidia_cmem_latency_pmu_%u",
                 "events": {"OUTS": "rd_cum_outs", "REQ": "rd_req", "CYCLES": "cycles"},
                 "expression": "(OUTS / REQ) / (CYCLES / DURATION_TIME)", "source": "NVIDIA Tegra410 PMU guide"}]
  })json");
}

Catalog load(const json& metrics, const json& types = types_file()) {
  std::string t = types.dump(), m = metrics.dump();
  pmukit::platform::EmbeddedFile files[] = {{"metrics/test.json", m}, {"metrics/types.json", t}};
  return Catalog::from_files(files);
}

// The error a metrics file with one change to its metric gives.
std::string error_of(const json& metrics, const json& types = types_file()) {
  try {
    load(metrics, types);
  } catch (const pmukit::UsageError& e) {
    return e.what();
  }
  return "(loaded)";
}

json with_metric(const char* key, json value) {
  json f = metrics_file();
  f["metrics"][0][key] = std::move(value);
  return f;
}

}  // namespace

TEST(Catalog, EmbeddedFilesLoadAndEveryMetricHasAKnownPmuType) {
  const Catalog& c = catalog();
  EXPECT_EQ(c.metrics().size(),
            220u);  // 175 uncore (14 Intel IMC: 4 + 10 variants of 5, 8 Intel IIO, 2 Intel UPI, 62 perf Intel
                    // uncore: 28 + 34 variants of 14, 7 AMD, 5 CMN), 45 Grace core
  EXPECT_EQ(c.unavailable().size(), 6u);  // perf's metrics pmukit does not count, each with its reason
  EXPECT_EQ(c.pmu_types().size(),
            28u);  // armv8_pmuv3_%u for the core metrics, amd_l3, amd_df, amd_umc_%u, amd_umc for AMD,
                   // uncore_cha/upi/upi_%u/iio/m2m/irp/pcu
  for (const auto& m : c.metrics()) {
    const PmuType* t = c.find_pmu_type(m.pmu());
    ASSERT_NE(t, nullptr) << m.name();
    EXPECT_FALSE(m.spec().source.empty());
    EXPECT_EQ(m.spec().file, "metrics/" + m.spec().family + ".json") << m.name();
  }
  EXPECT_EQ(pmukit::platform::find_embedded("README.json"),
            std::nullopt);  // the placeholder is gone
}

TEST(Catalog, FindsMetricsByName) {
  const Metric* m = catalog().find("scf_local_mem_read_bw");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->unit(), "GB/s");
  EXPECT_EQ(m->pmu(), "nvidia_scf_pmu_%u");
  EXPECT_EQ(m->spec().expression, "CMEM_RD_DATA*32/DURATION_TIME");
  EXPECT_EQ(catalog().find("no_such_metric"), nullptr);
  try {
    catalog().at("no_such_metric");
    FAIL();
  } catch (const pmukit::UsageError& e) {
    EXPECT_STREQ(e.what(), "unknown metric 'no_such_metric'");
  }
}

TEST(Catalog, ListsMetricsByPmuTypeOrPmuName) {
  auto names = [](const std::vector<const Metric*>& v) {
    std::vector<std::string> out;
    for (const auto* m : v) out.push_back(m->name());
    return out;
  };
  auto scf = names(catalog().for_pmu("nvidia_scf_pmu_%u"));
  EXPECT_EQ(scf.size(), 19u);
  auto s1 = names(catalog().for_pmu("nvidia_scf_pmu_1"));
  EXPECT_EQ(s1.size(), 16u);  // all but the three "_s0" ones
  EXPECT_NE(std::find(s1.begin(), s1.end(), "scf_remote_mem_read_util_s1"), s1.end());
  EXPECT_EQ(std::find(s1.begin(), s1.end(), "scf_remote_mem_read_util_s0"), s1.end());
  EXPECT_EQ(names(catalog().for_pmu("dwc_rootport_3018")),
            (std::vector<std::string>{"dwc_pcie_rx_bw", "dwc_pcie_tx_bw"}));
  EXPECT_EQ(names(catalog().for_pmu("pcie_bdf_200")), (std::vector<std::string>{"pcie_bdf_rx_bw", "pcie_bdf_tx_bw"}));
  // imc_read_bw and imc_write_bw (a variant for GNR's sub-channels each) and the two spr_ ones
  EXPECT_EQ(catalog().for_pmu("uncore_imc_0").size(), 6u);
  EXPECT_EQ(catalog().for_pmu("arm_cmn_0").size(), 5u);  // 4 CCLA link bandwidths, the HN-F memory estimate
  EXPECT_TRUE(catalog().for_pmu("no_such_pmu_0").empty());
  EXPECT_TRUE(catalog().for_pmu("no_such_pmu_%u").empty());
}

TEST(Catalog, AcceptsAWellFormedFile) {
  Catalog c = load(metrics_file());
  ASSERT_EQ(c.metrics().size(), 1u);
  EXPECT_EQ(c.metrics()[0].spec().family, "test");
  auto r = c.at("lat").evaluate({{"OUTS", 2e9}, {"REQ", 1e7}, {"CYCLES", 1e9}}, 1e9);
  EXPECT_DOUBLE_EQ(r.value, 200.0);
}

TEST(Catalog, RefusesABadExpression) {
  EXPECT_EQ(error_of(with_metric("expression", "OUTS*/REQ")),
            "metrics/test.json: metric 'lat': expression 'OUTS*/REQ': unexpected '/' at column 6");
}

TEST(Catalog, RefusesAnUnboundVariable) {
  EXPECT_EQ(error_of(with_metric("expression", "(OUTS / REQ) / (CYCLE / DURATION_TIME)")),
            "metrics/test.json: metric 'lat': expression '(OUTS / REQ) / (CYCLE / DURATION_TIME)': "
            "'CYCLE' is not "
            "DURATION_TIME, duration_time, an event variable or a parameter");
}

TEST(Catalog, RefusesAnUnknownPmuType) {
  EXPECT_EQ(error_of(with_metric("pmu", "nvidia_cmem_pmu_%u")),
            "metrics/test.json: metric 'lat': unknown PMU type 'nvidia_cmem_pmu_%u' (PMU types are "
            "declared in a "
            "\"pmukit-pmu-types/1\" file)");
  // One instance of a known type is fine.
  EXPECT_EQ(error_of(with_metric("pmu", "nvidia_cmem_latency_pmu_1")), "(loaded)");
}

TEST(Catalog, RefusesEventsTheirPmuDoesNotHave) {
  EXPECT_EQ(error_of(with_metric("events", {{"OUTS", "rd_cum_out"}, {"REQ", "rd_req"}, {"CYCLES", "cycles"}})),
            "metrics/test.json: metric 'lat': event 'rd_cum_out' of 'OUTS': 'rd_cum_out' is not an "
            "event of "
            "nvidia_cmem_latency_pmu_%u");
  EXPECT_EQ(error_of(with_metric("events", {{"OUTS", "event=0x2,mask=1"}, {"REQ", "rd_req"}, {"CYCLES", "cycles"}})),
            "metrics/test.json: metric 'lat': event 'event=0x2,mask=1' of 'OUTS': 'mask' is not a "
            "term of "
            "nvidia_cmem_latency_pmu_%u");
  EXPECT_EQ(error_of(with_metric("events", {{"OUTS", json::array()}, {"REQ", "rd_req"}, {"CYCLES", "cycles"}})),
            "metrics/test.json: metric 'lat': event variable 'OUTS' must be an event string or a "
            "non-empty array of them");
  // Several events for one variable are summed, and each is checked.
  EXPECT_EQ(
      error_of(with_metric(
          "events", {{"OUTS", json::array({"rd_cum_outs", "event=0x2"})}, {"REQ", "rd_req"}, {"CYCLES", "cycles"}})),
      "(loaded)");
}

// A variable may count on another PMU type than the metric's ("PMU/TERMS/", perf's CHA + M2M
// formula): its events are checked against that type, and all of them are on that one PMU.
TEST(Catalog, AVariableMayCountOnAnotherPmu) {
  const json others = {{"REQ", "rd_req"}, {"CYCLES", "cycles"}};
  auto with_outs = [&](json outs) {
    json events = others;
    events["OUTS"] = std::move(outs);
    return with_metric("events", events);
  };
  Catalog c = load(with_outs("nvidia_pcie_pmu_0/rd_bytes_loc/"));
  const auto& m = c.at("lat");
  EXPECT_EQ(m.other_pmus(), std::vector<std::string>{"nvidia_pcie_pmu_0"});
  for (const auto& b : m.events()) {
    EXPECT_EQ(b.pmu, b.variable == "OUTS" ? "nvidia_pcie_pmu_0" : "") << b.variable;
    if (b.variable == "OUTS") {
      EXPECT_EQ(b.events, std::vector<std::string>{"rd_bytes_loc"});
    }
  }
  EXPECT_EQ(error_of(with_outs("nvidia_pcie_pmu_0/rd_cum_outs/")),
            "metrics/test.json: metric 'lat': event 'nvidia_pcie_pmu_0/rd_cum_outs/' of 'OUTS': 'rd_cum_outs' is "
            "not an event of nvidia_pcie_pmu_%u");
  EXPECT_EQ(error_of(with_outs("nope_0/event=1/")),
            "metrics/test.json: metric 'lat': event 'nope_0/event=1/' of 'OUTS': unknown PMU 'nope_0' (PMU types "
            "are declared in a \"pmukit-pmu-types/1\" file)");
  EXPECT_NE(error_of(with_outs("nvidia_pcie_pmu_%u/rd_bytes_loc/")).find("unknown PMU 'nvidia_pcie_pmu_%u'"),
            std::string::npos);
  EXPECT_EQ(error_of(with_outs(json::array({"rd_cum_outs", "nvidia_pcie_pmu_0/rd_bytes_loc/"}))),
            "metrics/test.json: metric 'lat': event variable 'OUTS': its events are on different PMUs");
  EXPECT_NE(error_of(with_outs("nvidia_cmem_latency_pmu_%u/rd_cum_outs/")).find("unknown PMU"), std::string::npos);
}

TEST(Catalog, RefusesUnknownAndMissingKeys) {
  json f = metrics_file();
  f["metrics"][0]["expresion"] = f["metrics"][0]["expression"];
  EXPECT_EQ(error_of(f), "metrics/test.json: metric 'lat': unknown key 'expresion'");
  f["metrics"][0].erase("expression");
  f["metrics"][0].erase("expresion");
  EXPECT_EQ(error_of(f), "metrics/test.json: metric 'lat': missing key 'expression'");
  f = metrics_file();
  f["metrics"][0].erase("name");
  EXPECT_EQ(error_of(f), "metrics/test.json: metrics[0]: missing key 'name'");
  f = metrics_file();
  f["version"] = 2;
  EXPECT_EQ(error_of(f), "metrics/test.json: unknown key 'version'");
  json t = types_file();
  t["pmu_types"][1]["format"] = "config:0-7";
  EXPECT_EQ(error_of(metrics_file(), t), "metrics/types.json: pmu_types[1]: unknown key 'format'");
}

TEST(Catalog, RefusesBadValues) {
  EXPECT_EQ(error_of(with_metric("unit", "GBps")),
            "metrics/test.json: metric 'lat': unknown unit 'GBps' (one of GB/s, MB/s, %, ns, GHz, "
            "cycles, requests/cycle, ratio, MPKI, instructions/cycle, GFLOP/s, events/s, cores)");
  EXPECT_EQ(error_of(with_metric("description", "")),
            "metrics/test.json: metric 'lat': 'description' must be a non-empty string");
  EXPECT_EQ(error_of(with_metric("name", "Lat")),
            "metrics/test.json: metric 'Lat': the name must be snake_case, as perf's metric names are");
  EXPECT_EQ(error_of(with_metric("required_terms", json::array({"root_port"}))),
            "metrics/test.json: metric 'lat': required term 'root_port' is not a term of "
            "nvidia_cmem_latency_pmu_%u");
  EXPECT_EQ(error_of(with_metric("parameters", {{"F", {{"default", "1.8"}, {"unit", "GHz"}, {"description", "x"}}}})),
            "metrics/test.json: metric 'lat': parameter 'F': 'default' must be a number");
  EXPECT_EQ(error_of(with_metric("parameters", {{"F", {{"default", 1.8}, {"unit", "GHz"}, {"description", "x"}}}})),
            "metrics/test.json: metric 'lat': 'F' is not used by the expression '(OUTS / REQ) / "
            "(CYCLES / DURATION_TIME)'");
  json f = metrics_file();
  f["metrics"] = json::array();
  EXPECT_EQ(error_of(f), "metrics/test.json: 'metrics' must be a non-empty array");
}

TEST(Catalog, RefusesDuplicates) {
  std::string m = metrics_file().dump(), t = types_file().dump();
  pmukit::platform::EmbeddedFile twice[] = {{"metrics/a.json", m}, {"metrics/b.json", m}, {"metrics/types.json", t}};
  try {
    Catalog::from_files(twice);
    FAIL();
  } catch (const pmukit::UsageError& e) {
    EXPECT_STREQ(e.what(), "metrics/b.json: metric 'lat': also defined in metrics/a.json");
  }
  json types = types_file();
  types["pmu_types"][1]["pattern"] = "nvidia_cmem_latency_pmu_%u";
  EXPECT_EQ(error_of(metrics_file(), types),
            "metrics/types.json: PMU type 'nvidia_cmem_latency_pmu_%u': already declared in "
            "metrics/types.json");
  types = types_file();
  types["pmu_types"][1]["pattern"] = "nvidia pcie";
  EXPECT_EQ(error_of(metrics_file(), types),
            "metrics/types.json: PMU type 'nvidia pcie': character ' ' cannot be part of a PMU name");
}

TEST(Catalog, RefusesFilesThatAreNotCatalogFiles) {
  pmukit::platform::EmbeddedFile broken[] = {{"metrics/x.json", "{\"schema\": \"pmukit-metrics/1\", "}};
  try {
    Catalog::from_files(broken);
    FAIL();
  } catch (const pmukit::UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("metrics/x.json: not valid JSON: ", 0), 0u) << e.what();
  }
  json f = metrics_file();
  f["schema"] = "pmukit-metrics/2";
  EXPECT_EQ(error_of(f), "metrics/test.json: unknown schema 'pmukit-metrics/2' (expected \"pmukit-metrics/1\" or "
                         "\"pmukit-pmu-types/1\")");
  EXPECT_EQ(error_of(json::array()),
            "metrics/test.json: no \"schema\" (\"pmukit-metrics/1\" or \"pmukit-pmu-types/1\")");
}

// A user's own metrics file, read from disk, can use the PMU types the library knows.
TEST(Catalog, AddsAUserFileFromDisk) {
  pmukit::test::TempDir dir;
  json f = metrics_file();
  f["family"] = "mine";
  f["metrics"][0]["name"] = "my_pcie_read_share";
  f["metrics"][0]["unit"] = "%";
  f["metrics"][0]["pmu"] = "nvidia_pcie_pmu_0";
  f["metrics"][0]["events"] = {{"LOC", "rd_bytes_loc"}, {"REM", "rd_bytes_rem"}};
  f["metrics"][0]["required_terms"] = json::array({"root_port"});
  f["metrics"][0]["expression"] = "100 * LOC / (LOC + REM)";
  pmukit::write_file(dir / "mine.json", f.dump(2));
  Catalog c = Catalog::embedded();
  c.add_file(dir / "mine.json");
  auto r = c.at("my_pcie_read_share").evaluate({{"LOC", 3}, {"REM", 1}}, 0);
  EXPECT_DOUBLE_EQ(r.value, 75.0);
  EXPECT_EQ(c.metrics().size(), catalog().metrics().size() + 1);
  EXPECT_THROW(c.add_file(dir / "missing.json"), pmukit::Error);
  try {
    c.add_file(dir / "mine.json");
    FAIL();
  } catch (const pmukit::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("also defined in"), std::string::npos) << e.what();
  }
}

// docs/metrics.md lists the metrics; a metric added to the data without its line there fails here.
TEST(Catalog, DocsListEveryMetric) {
  std::string doc = pmukit::read_file(pmukit::test::source_dir() / "docs" / "metrics.md");
  for (const auto& m : catalog().metrics())
    EXPECT_NE(doc.find("`" + m.name() + "`"), std::string::npos) << m.name() << " is missing from docs/metrics.md";
}

// One name, a formula per generation: perf's per-model files differ (uncore_frequency counts
// UNC_CHA_CLOCKTICKS as event 0x00 up to Ice Lake-SP, 0x01 from Sapphire Rapids on).
TEST(Catalog, VariantsAreOneNameWithAFormulaPerPmuKind) {
  const auto v = catalog().variants("uncore_frequency");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(catalog().find("uncore_frequency"), v[0]);
  EXPECT_EQ(v[0]->spec().pmu_kinds, std::vector<std::string>{"intel_skx_cha"});
  EXPECT_EQ(v[2]->spec().pmu_kinds, std::vector<std::string>{"intel_spr_cha"});
  EXPECT_EQ(v[0]->events().at(0).events, std::vector<std::string>{"event=0x00"});
  EXPECT_EQ(v[2]->events().at(0).events, std::vector<std::string>{"event=0x01"});
  EXPECT_EQ(v[2]->spec().metric_group, "No_group");
  EXPECT_EQ(catalog().variants("io_bandwidth_read").at(0)->pmu(), "uncore_iio");  // SKX/CLX: IIO, later: CHA
  EXPECT_EQ(catalog().variants("io_bandwidth_read").at(2)->pmu(), "uncore_cha");
  EXPECT_TRUE(catalog().variants("no_such_metric").empty());

  json f = metrics_file();
  json variant = {{"pmu", "nvidia_cmem_latency_pmu_%u"},
                  {"pmu_kinds", {"k1"}},
                  {"events", {{"REQ", "rd_req"}}},
                  {"expression", "REQ / DURATION_TIME"},
                  {"source", "test"}};
  f["metrics"].push_back({{"name", "rate"}, {"description", "d"}, {"unit", "GHz"}, {"variants", {variant, variant}}});
  EXPECT_EQ(error_of(f), "metrics/test.json: metric 'rate': variants[1]: PMU kind 'k1' is in an earlier variant too");
  f["metrics"][1]["variants"][1]["pmu_kinds"] = {"k2"};
  Catalog c = load(f);
  EXPECT_EQ(c.variants("rate").size(), 2u);
  // One kind in two variants for different platforms (Sierra Forest's CHA is Sapphire Rapids' kind).
  json g = f;
  g["metrics"][1]["variants"][1]["pmu_kinds"] = {"k1"};
  g["metrics"][1]["variants"][1]["platforms"] = {"srf"};
  EXPECT_EQ(error_of(g), "metrics/test.json: metric 'rate': variants[1]: PMU kind 'k1' is in an earlier variant too");
  g["metrics"][1]["variants"][0]["not_platforms"] = {"srf"};
  Catalog by_platform = load(g);
  const auto apart = by_platform.variants("rate");
  ASSERT_EQ(apart.size(), 2u);
  EXPECT_TRUE(apart[0]->for_platform("spr") && apart[0]->for_platform(""));
  EXPECT_FALSE(apart[0]->for_platform("srf"));
  EXPECT_TRUE(apart[1]->for_platform("srf"));
  EXPECT_FALSE(apart[1]->for_platform("spr") || apart[1]->for_platform(""));  // an unknown platform is none of them
  f["metrics"][1]["variants"][1].erase("pmu_kinds");
  EXPECT_EQ(error_of(f), "metrics/test.json: metric 'rate': variants[1]: missing key 'pmu_kinds'");
  f["metrics"][1]["name"] = "lat";
  EXPECT_NE(error_of(f).find("also defined in"), std::string::npos) << error_of(f);
}

// perf's metrics pmukit does not count: a name, where perf has it and the reason, checked like metrics.
TEST(Catalog, UnavailableMetricsNameThePlatformsAndTheReason) {
  json f = metrics_file();
  json u = {{"name", "cpu_cstate_c0"},
            {"description", "d"},
            {"platforms", {"spr"}},
            {"reason", "its events are the PCU's"},
            {"source", "perf"}};
  f["unavailable"] = {u};
  Catalog c = load(f);
  ASSERT_EQ(c.unavailable().size(), 1u);
  EXPECT_EQ(c.find_unavailable("cpu_cstate_c0", "spr"), &c.unavailable()[0]);
  EXPECT_EQ(c.find_unavailable("cpu_cstate_c0"), &c.unavailable()[0]);
  EXPECT_EQ(c.find_unavailable("cpu_cstate_c0", "icx"), nullptr);
  f["unavailable"][0]["platforms"] = json::array();
  EXPECT_EQ(error_of(f),
            "metrics/test.json: unavailable[0]: 'platforms' must name the platforms perf has the metric for");
  f["unavailable"][0]["platforms"] = {"spr"};
  f["unavailable"][0]["why"] = "x";
  EXPECT_EQ(error_of(f), "metrics/test.json: unavailable[0]: unknown key 'why'");
}
