// perf's Intel uncore metrics (platforms/metrics/perf_intel_uncore.json, perf's names and formulas)
// end to end: pmu-raw -M against pmu-sim on the bundled Xeons. Each expected figure is computed here
// from the simulator's configured rates (platforms/sim/rates.json) and the number of boxes found.
#include <cstdlib>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pmukit/platform/embedded.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// The simulator's rate for an event of a PMU kind (counter control bits 15:0), or its default.
double sim_rate(const std::string& kind, const std::string& code) {
  const auto doc = nlohmann::json::parse(platform::find_embedded("sim/rates.json").value_or("{}"));
  for (const auto& r : doc["rules"])
    if (r["kind"] == kind && r["code"] == code) return r["rate"].get<double>();
  return doc["default"].get<double>();
}

// Boxes the machine has of a kernel PMU type ("uncore_imc": uncore_imc_N of every socket), and their kind.
std::pair<unsigned, std::string> boxes(const test::BundledRig& m, const std::string& type) {
  unsigned n = 0;
  std::string kind;
  for (const auto& u : m.found.inventory.units)
    if (u.name.rfind(type + "_", 0) == 0 &&
        u.name.find_first_not_of("0123456789", type.size() + 1) == std::string::npos)
      ++n, kind = u.pmu_kind;
  return {n, kind};
}

// The value of `metric (pmu)` in pmu-raw's -x, output, or NaN.
double value_of(const std::string& out, const std::string& row) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (auto at = line.find("," + row + ",,,"); at != std::string::npos)  // ",,NAME (PMU),,,VALUE,UNIT"
      return std::strtod(line.c_str() + at + row.size() + 4, nullptr);
  ADD_FAILURE() << "no row '" << row << "' in:\n" << out;
  return 0;
}

}  // namespace

TEST(RawPerfMetrics, SapphireRapidsMemoryUpiAndLlcMissBandwidth) {
  test::BundledRig m("spr-2s");
  test::SimProcess sim(m.root);
  auto r = test::run_tool("pmu-raw", m.args({"-M", "memory_bandwidth_read,upi_data_transmit_bw", "-M",
                                             "llc_miss_local_memory_bandwidth_read", "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto [imc, imc_kind] = boxes(m, "uncore_imc");
  const auto [upi, upi_kind] = boxes(m, "uncore_upi");
  const auto [cha, cha_kind] = boxes(m, "uncore_cha");
  ASSERT_GT(imc, 0u);
  ASSERT_GT(upi, 0u);
  ASSERT_GT(cha, 0u);
  // perf: UNC_M_CAS_COUNT.RD (event 0x05, umask 0xcf) * 64 / 1e6 / duration_time: MB/s over 2 s.
  const double cas_per_s = imc * sim_rate(imc_kind, "0xcf05");
  EXPECT_NEAR(value_of(r.out, "memory_bandwidth_read (uncore_imc)"), cas_per_s * 64 / 1e6, 0.0005) << r.out;
  // perf: UNC_UPI_TxL_FLITS.ALL_DATA (0x02/0x0f) * 7.111111111111111 / 1e6 / duration_time.
  const double flits_per_s = upi * sim_rate(upi_kind, "0x0f02");
  EXPECT_NEAR(value_of(r.out, "upi_data_transmit_bw (uncore_upi)"), flits_per_s * 64 / 9 / 1e6, 0.0005) << r.out;
  // perf: UNC_CHA_REQUESTS.READS_LOCAL (0x50/0x01) * 64 / 1e6 / duration_time.
  const double reads_per_s = cha * sim_rate(cha_kind, "0x0150");
  EXPECT_NEAR(value_of(r.out, "llc_miss_local_memory_bandwidth_read (uncore_cha)"), reads_per_s * 64 / 1e6, 0.0005)
      << r.out;
  EXPECT_NE(r.out.find(",MB/s"), std::string::npos) << r.out;
}

// The same perf name on the older generations counts each one's own CAS code (the kernel's
// cas_count_read: 0x04/0x03 on Cascade Lake, 0x04/0x0f on Ice Lake-SP).
TEST(RawPerfMetrics, MemoryBandwidthReadOnCascadeLakeAndIceLake) {
  for (auto [machine, code] : {std::pair{"clx-2s", "0x0304"}, {"icx-2s", "0x0f04"}}) {
    test::BundledRig m(machine);
    test::SimProcess sim(m.root);
    auto r = test::run_tool("pmu-raw", m.args({"-M", "memory_bandwidth_read", "--duration", "1", "-x", ","}));
    ASSERT_EQ(r.status, 0) << machine << ": " << r.err;
    const auto [imc, kind] = boxes(m, "uncore_imc");
    ASSERT_GT(imc, 0u);
    EXPECT_NEAR(value_of(r.out, "memory_bandwidth_read (uncore_imc)"), imc * sim_rate(kind, code) * 64 / 1e6, 0.0005)
        << machine << ": " << r.out;
  }
}
