// The SoC platform data: the CoreSight match table resolves PMIIDR values as the kernel's tables
// do, every named event only uses its kind's formats, and the loader rejects bad data naming the
// file.
#include <gtest/gtest.h>

#include <set>

#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"
#include "support/platform_files.h"

using namespace pmukit;
using platform::Database;

namespace {

std::string load_error(const std::vector<std::pair<std::string, std::string>>& files) {
  return test::database_load_error(files);
}

const std::string kGenericKind = R"({"pmus": [{"kind": "k", "formats": {"event": "config:0-32"}, "events": {}}]})";

}  // namespace

TEST(SocData, CoreSightMatchFollowsTheKernelTables) {
  const auto& cs = *Database::builtin().soc().coresight;
  struct Case {
    std::uint32_t pmiidr;
    const char* product;
    const char* pattern;
    bool exact;
  } cases[] = {
      {0x2cf0036b, "Grace SCF", "nvidia_scf_pmu_{socket}", true},
      {0x1030036b, "Grace PCIe", "nvidia_pcie_pmu_{socket}", true},
      {0x1030136b, "Tegra410 PCIE", "nvidia_pcie_pmu_{socket}_rc_{rc}", true},  // revision 1
      {0x1030236b, "NVIDIA uncore (product not in the kernel's table)", "nvidia_uncore_pmu_{index}", false},
      {0x1070036b, "Tegra410 PCIE-TGT", "nvidia_pcie_tgt_pmu_{socket}_rc_{rc}", true},
      {0x12345a16, "Ampere MCU (memory controller)", "ampere_mcu_pmu_{index}", false},
      {0x0000043b, "generic CoreSight PMU", "arm_cspmu_{type}_{index}", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(hex(c.pmiidr));
    auto m = cs.match(c.pmiidr);
    EXPECT_EQ(m.product->product, c.product);
    EXPECT_EQ(m.product->name_pattern, c.pattern);
    EXPECT_EQ(m.exact, c.exact);
  }
  EXPECT_EQ(cs.implementer_name(0x43b), "Arm");
  EXPECT_EQ(cs.implementer_name(0x123), "JEP106 0x123");
}

TEST(SocData, EveryNamedEventUsesOnlyItsKindsFormats) {
  const auto& db = Database::builtin();
  std::set<std::string> kinds = {"nvidia_grace_scf",     "nvidia_grace_pcie",   "nvidia_grace_nvlink_c2c",
                                 "nvidia_grace_cnvlink", "nvidia_t410_ucf",     "nvidia_t410_pcie",
                                 "nvidia_t410_pcie_tgt", "nvidia_generic",      "nvidia_t410_nvlink_c2c",
                                 "nvidia_t410_nvclink",  "nvidia_t410_nvdlink", "nvidia_t410_cmem_latency",
                                 "ampere_mcu",           "coresight_generic",   "dwc_pcie"};
  for (const auto& name : kinds) {
    const auto* k = db.pmu_kind(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_FALSE(k->events.empty()) << name;
    for (const auto& [alias, ev] : k->events)
      for (auto term : split(ev.terms, ',')) {
        auto key = std::string(term.substr(0, term.find('=')));
        EXPECT_TRUE(k->formats.count(key)) << name << "/" << alias << ": " << key;
      }
  }
  // Spot checks against the kernel and the guides.
  EXPECT_EQ(db.pmu_kind("nvidia_grace_scf")->events.at("cmem_wr_total_bytes").terms, "event=0x1db");
  EXPECT_EQ(db.pmu_kind("nvidia_grace_scf")->events.at("socket_3_wr_access").terms, "event=0x13c");
  EXPECT_EQ(db.pmu_kind("nvidia_t410_pcie_tgt")->events.at("cycles").terms, "event=0x4");
  EXPECT_EQ(db.pmu_kind("nvidia_t410_pcie")->formats.at("src_bdf"), "config1:8-23");
  // The kernel driver multiplies the 16-byte payload units by 16 itself: no .scale on top.
  EXPECT_EQ(db.pmu_kind("dwc_pcie")->events.at("rx_pcie_tlp_data_payload").scale, 1.0);
  EXPECT_EQ(db.pmu_kind("dwc_pcie")->events.at("rx_ccix_tlp").terms, "eventid=0x717,type=0x1");
  EXPECT_EQ(db.pmu_kind("nvidia_t410_nvdlink")->events.size(), 3u);
  EXPECT_EQ(db.soc().t410_blocks.size(), 4u);
  EXPECT_EQ(db.soc().dwc->vendors.size(), 4u);
  EXPECT_EQ(db.soc().rc_maps.size(), 2u);
}

TEST(SocData, LoaderRejectsBadDataNamingTheFile) {
  EXPECT_EQ(load_error({{"p.json", kGenericKind},
                        {"b.json",
                         R"({"t410_blocks": [{"hid": "X", "interface": "i", "family": "t410-c2c", "instances": 1,
                                      "name": "n", "pmu": "nope", "counters": 1, "width": 64, "registers": []}]})"}}),
            "platforms: t410 block X names unknown pmu kind 'nope'");
  EXPECT_EQ(load_error({{"r.json", R"({"pcie_rc_maps": [{"name": "x", "method": "magic", "pmus": []}]})"}}),
            "platforms/r.json rc map x: method 'magic' is neither dvsec nor domain");
  EXPECT_EQ(load_error({{"f.json", R"({"pmus": [{"kind": "k", "formats": {"event": "config:0-7"},
                                      "format_help": {"nope": "x"}, "events": {}}]})"}}),
            "platforms/f.json pmu k: format_help names unknown format 'nope'");
  EXPECT_NE(load_error({{"d.json", R"({"designware_rasdes": {"vsec_id": 2}})"}}).find("platforms/d.json"),
            std::string::npos);
}

TEST(SocData, PatternsExpandKnownPlaceholdersOnly) {
  EXPECT_EQ(platform::expand_pattern("nvidia_pcie_pmu_{socket}_rc_{rc}", {{"socket", "1"}, {"rc", "4"}}),
            "nvidia_pcie_pmu_1_rc_4");
  EXPECT_EQ(platform::expand_pattern("a_{x}_{", {{"y", "1"}}), "a_{x}_{");
}
