// Metrics and the generation of the PMU they run on: a metric whose events are named runs where
// the PMU's kind defines those names, with that kind's codes; one that writes codes out runs only
// on the kinds it names (pmu_kinds); without a kind (a PMU only the kernel knows) the name decides.
#include <gtest/gtest.h>

#include "pmukit/metrics/catalog.h"
#include "pmukit/platform/database.h"

using namespace pmukit;

namespace {

const metrics::Catalog& catalog() {
  static const auto c = metrics::Catalog::embedded();
  return c;
}

const platform::PmuKind* kind(const char* name) {
  const auto* k = platform::Database::builtin().pmu_kind(name);
  EXPECT_NE(k, nullptr) << name;
  return k;
}

}  // namespace

TEST(MetricGeneration, NamedEventsRunOnEveryKindThatNamesThem) {
  const auto& dram = catalog().at("dram_read_bw");
  EXPECT_TRUE(dram.applies_to("uncore_imc", kind("intel_skx_imc")));
  EXPECT_TRUE(dram.applies_to("uncore_imc", kind("intel_spr_imc")));
  EXPECT_FALSE(dram.applies_to("uncore_imc", kind("intel_dmr_imc")));    // no cas_count_read there
  EXPECT_TRUE(dram.applies_to("uncore_imc"));                            // a kernel-only PMU: by name
  EXPECT_FALSE(dram.applies_to("uncore_imc_0", kind("intel_skx_imc")));  // the merged PMU only
}

TEST(MetricGeneration, WrittenOutCodesRunOnlyOnTheirKinds) {
  EXPECT_TRUE(catalog().at("spr_dram_read_bw").applies_to("uncore_imc", kind("intel_spr_imc")));
  EXPECT_FALSE(catalog().at("spr_dram_read_bw").applies_to("uncore_imc", kind("intel_skx_imc")));
  EXPECT_FALSE(catalog().at("iio_iotlb_lookups").applies_to("uncore_iio_1", kind("intel_skx_iio")));
  EXPECT_TRUE(catalog().at("iio_iotlb_lookups").applies_to("uncore_iio_1", kind("intel_snr_iio")));
  // SKX's outbound read is GNR's event (PCM opCode-6-85.txt 'OB read': ev_sel 0xc0, umask 0x4).
  EXPECT_TRUE(catalog().at("gnr_iio_outbound_read_bw").applies_to("uncore_iio_1", kind("intel_skx_iio")));
}

// Each kind's own codes (Linux uncore_snbep.c IMC event descriptions): SKX cas_count_read is
// event 0x04 umask 0x03, SPR's event 0x05 umask 0xcf.
TEST(MetricGeneration, TheNamedEventEncodesAsTheKindsCode) {
  const auto& ev = catalog().at("dram_read_bw").events().at(0).events.at(0);
  EXPECT_EQ(ev, "cas_count_read");
  auto alias = [&](const char* k) { return kind(k)->events.at(ev).terms; };
  EXPECT_EQ(alias("intel_skx_imc"), "event=0x04,umask=0x03");
  EXPECT_EQ(alias("intel_spr_imc"), "event=0x05,umask=0xcf");
}
