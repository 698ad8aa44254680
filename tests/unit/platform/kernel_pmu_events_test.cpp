// The non-Intel uncore kinds of platforms/pmus/ against the event and format attributes Linux's
// drivers give them (tests/data/events/linux-arm-uncore.tsv, read from arm-cmn.c, nvidia_cspmu.c,
// nvidia_t410_c2c_pmu.c, nvidia_t410_cmem_latency_pmu.c, ampere_cspmu.c and dwc_pcie_pmu.c; its header
// names the versions). Every event sysfs shows is there by the kernel's name (matched regardless of
// case, as pmukit matches names) and encodes to the words the kernel's terms give; the formats are the
// kernel's; and no kind names events the kernel does not, except the DesignWare lane groups 0-5 that
// pmukit takes from the Alibaba Yitian 710 PCIe PMU guide.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "pmukit/platform/database.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/text.h"

using namespace pmukit;

namespace {

struct KernelKind {
  std::map<std::string, std::string> events;   // name as sysfs spells it -> terms
  std::map<std::string, std::string> formats;  // name -> bits
};

std::map<std::string, KernelKind> read_oracle() {
  std::ifstream in(std::string(PMUKIT_SOURCE_DIR) + "/tests/data/events/linux-arm-uncore.tsv");
  std::map<std::string, KernelKind> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string kind, what, name, value;
    std::getline(f, kind, '\t'), std::getline(f, what, '\t'), std::getline(f, name, '\t'), std::getline(f, value, '\t');
    (what == "event" ? out[kind].events : out[kind].formats)[name] = value;
  }
  return out;
}

const std::map<std::string, KernelKind>& oracle() {
  static const auto o = read_oracle();
  return o;
}

syntax::PmuDescription description(const platform::PmuKind& k) {
  syntax::PmuDescription d;
  d.name = "p";
  for (const auto& [name, bits] : k.formats) d.formats[name] = syntax::parse_format(name, bits);
  d.aliases = k.events;
  return d;
}

std::tuple<std::uint64_t, std::uint64_t, std::uint64_t> words(const syntax::PmuDescription& d,
                                                              const std::string& terms) {
  auto e = syntax::encode(syntax::parse_event_list("p/" + terms + "/").at(0), d);
  return {e.config, e.config1, e.config2};
}

const platform::PmuKind& kind(const std::string& name) {
  const auto* k = platform::Database::builtin().pmu_kind(name);
  if (!k) throw std::runtime_error("no pmu kind " + name);
  return *k;
}

}  // namespace

TEST(KernelPmuEvents, TheOracleCoversTheKinds) {
  EXPECT_EQ(oracle().size(), 16u);
  EXPECT_EQ(oracle().at("arm_cmn").events.size(), 589u);  // v6.18 arm_cmn_event_attrs, every model
  EXPECT_EQ(oracle().at("ampere_mcu").events.size(), 58u);
  EXPECT_EQ(oracle().at("dwc_pcie").events.size(), 43u);
  EXPECT_EQ(oracle().at("nvidia_grace_scf").events.size(), 54u);
  for (const auto& [name, k] : oracle()) EXPECT_NO_THROW(kind(name)) << name;
}

TEST(KernelPmuEvents, EveryKernelEventIsThereByItsNameWithTheKernelsEncoding) {
  for (const auto& [name, kernel] : oracle()) {
    const auto d = description(kind(name));
    for (const auto& [event, terms] : kernel.events) {
      ASSERT_NE(syntax::find_alias(d, event), nullptr) << name << "/" << event;
      EXPECT_EQ(words(d, event), words(d, terms)) << name << "/" << event << " is " << terms << " in the kernel";
    }
  }
}

TEST(KernelPmuEvents, FormatsAreTheKernels) {
  for (const auto& [name, kernel] : oracle()) EXPECT_EQ(kind(name).formats, kernel.formats) << name;
}

TEST(KernelPmuEvents, NoEventTheKernelDoesNotName) {
  for (const auto& [name, kernel] : oracle()) {
    std::map<std::string, bool> known;
    for (const auto& [event, terms] : kernel.events) known[to_lower(event)] = true;
    const auto d = description(kind(name));
    for (const auto& [event, alias] : kind(name).events) {
      if (known.count(to_lower(event))) continue;
      // dwc_pcie: the lane groups 0-5 (eventid bits 15:8) the kernel leaves unnamed, from the guide.
      const std::uint64_t config = std::get<0>(words(d, event));
      const bool lane_group_0_to_5 = name == "dwc_pcie" && (config >> 16 & 0xf) == 1 && (config & 0xffff) >> 8 <= 5;
      EXPECT_TRUE(lane_group_0_to_5) << name << "/" << event << " is not in the kernel's attributes";
    }
  }
}
