// The uncore events perf knows, built in (platforms/perfmon/, scripts/perfmon-uncore-events.py):
// every CPU model the index names has a file; each file holds every event of the perf files it was
// made from (the counts recorded per source file, computed again from the data, by topic); each
// event encodes its EventCode/UMask/PortMask/FCMask; and the kernel's own lists
// (tests/data/events/linux-*-uncore.tsv, an older version) name the same events the same way.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pmukit/events/builtin_events.h"
#include "pmukit/platform/database.h"
#include "pmukit/platform/embedded.h"
#include "pmukit/platform/platform_index.h"
#include "pmukit/util/text.h"
#include "support/test_support.h"

using namespace pmukit;
using events::builtin_uncore_events;
using nlohmann::json;

namespace {

platform::PlatformIndex builtin_index() {
  return platform::PlatformIndex::parse(platform::find_embedded(platform::PlatformIndex::kPath).value_or("{}"));
}

json raw_file(const std::string& path) {
  auto text = platform::find_embedded(path);
  EXPECT_TRUE(text.has_value()) << path;
  return json::parse(text.value_or("{}"));
}

std::uint64_t field(const json& e, const char* key) {
  return e.contains(key) ? std::stoull(e[key].get<std::string>(), nullptr, 0) : 0;
}

// "event=0x05,umask=0xcf" -> {event: 5, umask: 0xcf}.
std::map<std::string, std::uint64_t> term_values(const std::string& terms) {
  std::map<std::string, std::uint64_t> out;
  for (auto t : split(terms, ',')) {
    auto eq = t.find('=');
    out[std::string(t.substr(0, eq))] = std::stoull(std::string(t.substr(eq + 1)), nullptr, 0);
  }
  return out;
}

// The values the source fields give: a zero field is no term, as perf writes them.
std::map<std::string, std::uint64_t> source_values(const json& e) {
  std::map<std::string, std::uint64_t> out{{"event", field(e, "EventCode")}};
  for (auto [key, term] : {std::pair{"UMask", "umask"}, {"PortMask", "ch_mask"}, {"FCMask", "fc_mask"}})
    if (field(e, key)) out[term] = field(e, key);
  if (e.contains("Filter"))  // perf's terms as written: "config1=0x40433", "ch_mask=0x1f"
    for (const auto& [term, value] : term_values(e["Filter"].get<std::string>())) out[term] = value;
  return out;
}

}  // namespace

TEST(BuiltinEvents, EachIntelServerModelHasPerfsUncoreEvents) {
  for (const char* model : {"skx", "icx", "icx-d", "spr", "emr", "gnr", "gnr-d", "srf"})
    EXPECT_NE(builtin_uncore_events(model), nullptr) << model;
  EXPECT_EQ(builtin_uncore_events("gnr"), builtin_uncore_events("gnr-d"));  // one file, parsed once
  EXPECT_EQ(builtin_uncore_events("icx"), builtin_uncore_events("icx-d"));
  EXPECT_NE(builtin_uncore_events("spr"), builtin_uncore_events("emr"));
  EXPECT_NE(builtin_uncore_events("skx"), builtin_uncore_events("icx"));
  EXPECT_EQ(builtin_uncore_events("snr"), nullptr);
  EXPECT_EQ(builtin_uncore_events(""), nullptr);
  // Each file says which models it is for, and the index agrees with it (PlatformIndex tests).
  for (const auto& [model, path] : builtin_index().perfmon_events) {
    const json doc = raw_file(path);
    bool named = false;
    for (const auto& m : doc["cpu_models"]) named = named || m == model;
    EXPECT_TRUE(named) << model << " " << path;
    for (const char* key : {"repository", "commit", "version", "licence", "files"})
      EXPECT_TRUE(doc["source"].contains(key)) << path << " source." << key;
  }
}

TEST(BuiltinEvents, EachPlatformHoldsEveryEventOfItsSourceFiles) {
  const auto index = builtin_index();
  ASSERT_GE(index.perfmon_events.size(), 4u);
  for (const auto& [model, path] : index.perfmon_events) {
    const json doc = raw_file(path);
    const auto* events = builtin_uncore_events(model);
    ASSERT_NE(events, nullptr) << model;
    std::map<std::string, std::size_t> by_topic;
    for (const auto& e : events->events()) ++by_topic[e.topic];
    std::size_t total = 0;
    for (const auto& f : doc["source"]["files"]) {
      std::string topic = f["file"].get<std::string>();  // uncore-memory.json: "uncore memory"
      topic = topic.substr(0, topic.find('.'));
      std::replace(topic.begin(), topic.end(), '-', ' ');
      EXPECT_EQ(by_topic[topic], f["events"].get<std::size_t>()) << path << " " << f["file"];
      total += f["events"].get<std::size_t>();
    }
    EXPECT_GT(total, 0u) << path;
    EXPECT_EQ(events->events().size(), total) << path;
    EXPECT_EQ(doc["Events"].size(), total) << path;
    EXPECT_EQ(by_topic.count(""), 0u) << path << ": an event whose Unit has no topic";
    for (const auto& e : events->events()) {
      EXPECT_EQ(events->find(to_lower(e.name)), &e) << path << ": " << e.name << " named twice";
      EXPECT_TRUE(e.pmu_type.starts_with("uncore_")) << e.name << " " << e.pmu_type;
    }
  }
}

TEST(BuiltinEvents, EachEventEncodesItsSourceFields) {
  for (const auto& [model, path] : builtin_index().perfmon_events) {
    const json doc = raw_file(path);
    const auto& list = builtin_uncore_events(model)->events();
    ASSERT_EQ(list.size(), doc["Events"].size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& raw = doc["Events"][i];
      const auto& e = list[i];
      ASSERT_EQ(e.name, raw["EventName"]);
      EXPECT_EQ(e.event_code, field(raw, "EventCode")) << e.name;
      EXPECT_EQ(e.umask, field(raw, "UMask")) << e.name;
      EXPECT_EQ(term_values(e.terms), source_values(raw)) << path << " " << e.name << ": " << e.terms;
    }
  }
}

// perf's names and the kernel's names for the same DRAM CAS counts: one encoding, on each generation
// whose IMC kind defines cas_count_read/cas_count_write (Skylake-SP/Cascade Lake and Ice Lake-SP
// have other codes than Sapphire Rapids: 0x04/0x03 and 0x04/0x0f).
TEST(BuiltinEvents, PerfsCasCountIsTheKernelsOnEachGeneration) {
  for (auto [model, kind_name] : {std::pair{"skx", "intel_skx_imc"},
                                  {"icx", "intel_icx_imc"},
                                  {"icx-d", "intel_icx_imc"},
                                  {"spr", "intel_spr_imc"},
                                  {"emr", "intel_spr_imc"}}) {
    const auto* kind = platform::Database::builtin().pmu_kind(kind_name);
    ASSERT_NE(kind, nullptr) << kind_name;
    for (auto [perf_name, kernel_name] :
         {std::pair{"unc_m_cas_count.rd", "cas_count_read"}, {"unc_m_cas_count.wr", "cas_count_write"}}) {
      const auto* e = builtin_uncore_events(model)->find(perf_name);
      ASSERT_NE(e, nullptr) << model << " " << perf_name;
      EXPECT_EQ(e->pmu_type, "uncore_imc");
      EXPECT_EQ(term_values(e->terms), term_values(kind->events.at(kernel_name).terms)) << model << " " << e->terms;
    }
  }
}

// perf's name and the kernel's name for the same DRAM read count: one encoding.
TEST(BuiltinEvents, PerfsCasCountIsTheKernelsCasCountRead) {
  const auto* kind = platform::Database::builtin().pmu_kind("intel_spr_imc");
  ASSERT_NE(kind, nullptr);
  const auto& kernel = kind->events.at("cas_count_read");
  for (const char* model : {"spr", "emr"}) {
    const auto* e = builtin_uncore_events(model)->find("unc_m_cas_count.rd");
    ASSERT_NE(e, nullptr) << model;
    EXPECT_EQ(e->pmu_type, "uncore_imc");
    EXPECT_EQ(e->topic, "uncore memory");
    EXPECT_EQ(term_values(e->terms), term_values(kernel.terms)) << e->terms;
  }
}

// GNR/SRF count CAS commands per sub-channel (gnr_uncore_imc_events): the kernel's four aliases are
// perf's UNC_M_CAS_COUNT_SCH0/SCH1.RD/WR, and there is no channel-wide cas_count_read.
TEST(BuiltinEvents, GnrCasCountsAreTheKernelsSubChannelAliases) {
  const auto* kind = platform::Database::builtin().pmu_kind("intel_gnr_imc");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(kind->events.count("cas_count_read"), 0U);
  EXPECT_EQ(kind->events.count("cas_count_write"), 0U);
  for (const char* model : {"gnr", "srf"})
    for (auto [perf, alias] : {std::pair{"UNC_M_CAS_COUNT_SCH0.RD", "cas_count_read_sch0"},
                               {"UNC_M_CAS_COUNT_SCH1.RD", "cas_count_read_sch1"},
                               {"UNC_M_CAS_COUNT_SCH0.WR", "cas_count_write_sch0"},
                               {"UNC_M_CAS_COUNT_SCH1.WR", "cas_count_write_sch1"}}) {
      const auto* e = builtin_uncore_events(model)->find(perf);
      ASSERT_NE(e, nullptr) << model << " " << perf;
      EXPECT_EQ(term_values(e->terms), term_values(kind->events.at(alias).terms)) << model << " " << perf;
    }
  EXPECT_EQ(term_values(kind->events.at("cas_count_read_sch1").terms), term_values("event=0x06,umask=0xcf"));
}

// The kernel's tools/perf/pmu-events lists of an older version (v1.20 SPR, v1.15 GNR): every event
// they name is built in, on the same PMU, with the same event, ch_mask and fc_mask, and the same
// umask -- except where Intel has since moved an IIO event's port selection into PortMask (SPR
// v1.20 wrote some in UMaskExt above the 8-bit umask, or left it out): there the rest agrees.
TEST(BuiltinEvents, TheKernelsListsNameTheSameEvents) {
  for (auto [model, tsv] :
       {std::pair{"spr", "linux-sapphirerapids-uncore.tsv"}, {"gnr", "linux-graniterapids-uncore.tsv"}}) {
    const auto* events = builtin_uncore_events(model);
    std::ifstream in(test::source_dir() / "tests/data/events" / tsv);
    ASSERT_TRUE(in) << tsv;
    std::size_t checked = 0, port_selection_moved = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const auto cols = split(line, '\t');
      ASSERT_EQ(cols.size(), 4u) << line;
      const auto* e = events->find(cols[1]);
      ASSERT_NE(e, nullptr) << model << ": " << cols[1];
      EXPECT_EQ(e->pmu_type, cols[2]) << cols[1];
      const auto theirs = term_values(std::string(cols[3]));
      const auto ours = term_values(e->terms);
      if (ours != theirs) {
        // Only the port selection may have moved: from UMaskExt or nowhere to PortMask alone.
        auto a = ours, b = theirs;
        a.erase("ch_mask");
        b.erase("ch_mask");
        if (b.count("umask") && a.count("umask") && (b["umask"] & 0xff) == a["umask"]) b["umask"] = a["umask"];
        EXPECT_EQ(a, b) << model << " " << cols[1] << ": " << e->terms << " vs " << cols[3];
        ++port_selection_moved;
      }
      ++checked;
    }
    EXPECT_GT(checked, 500u) << tsv;
    EXPECT_LT(port_selection_moved * 20, checked) << tsv;
  }
}
