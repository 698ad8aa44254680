// pmu-raw --io: pcm-iio's view, a row per PCIe device with inbound and outbound read and write in
// MB/s, on pmu-sim's virtual time.
//
// Expected figures from platforms/sim/rates.json, written out: an IIO part counts 4-byte units, per
// second 8e8 inbound reads (3200 MB/s), 4e8 inbound writes (1600 MB/s), 1e7 outbound reads (40 MB/s)
// and 2e7 outbound writes (80 MB/s), times the stack's share (by the n of uncore_iio_<n>: 1, 2, 1.5,
// 0.5) and the part's (by ch_mask bit: 1, 0.5, 0.25, 0.75), as pcm_views_test.cpp explains.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;
using nlohmann::json;

namespace {

bool has(const std::string& out, const std::string& text) {
  return out.find(text) != std::string::npos;
}

std::vector<json> json_lines(const std::string& out) {
  std::vector<json> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) v.push_back(json::parse(line));
  return v;
}

}  // namespace

// Cascade Lake: OB read from gnr_iio_outbound_read_bw's codes (DATA_REQ_BY_CPU.MEM_READ), which
// pcm-iio uses on Skylake-SP too; spr_iio_outbound_read_bw does not apply to an SKX IIO.
TEST(PcmIoView, CascadeLakeCsvPerDevice) {
  test::BundledRig rig("clx-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"--io", "--duration", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "time,device,socket,stack,IB read,IB write,OB read,OB write,name,reason\n")) << r.out;
  // uncore_iio_1 (x2), part 0 (x1).
  EXPECT_TRUE(has(r.out, "1.000,0000:18:00.0,0,uncore_iio_1 part 0,6400.00,3200.00,80.00,160.00,")) << r.out;
  // uncore_iio_3 (x0.5), part 2 (x0.25); lspci's name has a comma: quoted.
  EXPECT_TRUE(has(r.out, "1.000,0000:5e:00.0,0,uncore_iio_3 part 2,400.00,200.00,5.00,10.00,\"Non-Volatile")) << r.out;
  EXPECT_TRUE(has(r.out, "1.000,0000:d8:00.0,1,uncore_iio_3 part 3,1200.00,600.00,15.00,30.00,")) << r.out;
  EXPECT_FALSE(has(r.out, "event=")) << r.out;
  EXPECT_EQ(rig.image_change(), "");
}

TEST(PcmIoView, IceLakeTablePerDevice) {
  test::BundledRig rig("icx-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"--io", "--duration", "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "1.000 s: PCIe bandwidth per device, MB/s\n")) << r.out;
  EXPECT_TRUE(has(r.out, "IB read    IB write     OB read    OB write  Name\n")) << r.out;
  // uncore_iio_0 (x1), root port at device 2 = part 0 (x1).
  EXPECT_TRUE(
      has(r.out, "0000:16:00.0  S0      uncore_iio_0 part 0              3200.00     1600.00       40.00       80.00"))
      << r.out;
}

// Sapphire Rapids: every device --per-device lists, with the figure -M iio_inbound_read_bw gives it,
// and SPR's outbound read.
TEST(PcmIoView, SapphireRapidsJsonMatchesPerDeviceMetrics) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  auto v = test::run_tool("pmu-raw", rig.args({"--io", "--duration", "1", "-j"}));
  ASSERT_EQ(v.status, 0) << v.err;
  auto m = test::run_tool("pmu-raw", rig.args({"-M", "iio_inbound_read_bw", "--per-device", "--duration", "1", "-j"}));
  ASSERT_EQ(m.status, 0) << m.err;
  std::map<std::string, double> expected;  // MB/s
  for (const auto& j : json_lines(m.out))
    if (j.contains("device") && j.contains("metric-value"))
      expected[j["device"]] = std::stod(j["metric-value"].get<std::string>()) * 1e3;
  ASSERT_FALSE(expected.empty()) << m.out;
  std::size_t counted = 0;
  for (const auto& j : json_lines(v.out)) {
    if (j.contains("reason")) continue;
    ++counted;
    const std::string bdf = j["device"];
    ASSERT_TRUE(expected.count(bdf)) << bdf;
    EXPECT_NEAR(j["ib_read"].get<double>(), expected[bdf], 0.5) << bdf;
    EXPECT_DOUBLE_EQ(j["ib_read"].get<double>() / 80, j["ob_read"].get<double>()) << bdf;  // 3200 : 40 MB/s
  }
  EXPECT_EQ(counted, expected.size()) << v.out;
}

// SPR/EMR and GNR/SRF share the IIO PMU kind but not the outbound read event: the view takes the
// metric whose generation's event perf's list for the CPU model has (SPR's DATA_REQ_OF_CPU.CMPD).
TEST(PcmIoView, OutboundReadMetricFollowsTheCpuModelsEvents) {
  for (const auto& [machine, used, not_used] :
       std::vector<std::array<std::string, 3>>{{"spr-2s", "spr_iio_outbound_read_bw", "gnr_iio_outbound_read_bw"},
                                               {"gnr-2s", "gnr_iio_outbound_read_bw", "spr_iio_outbound_read_bw"},
                                               {"clx-2s", "gnr_iio_outbound_read_bw", "spr_iio_outbound_read_bw"}}) {
    test::BundledRig rig(machine);
    test::SimProcess sim(rig.root);
    auto r = test::run_tool("pmu-raw", rig.args({"--io", "--duration", "1", "-j"}));
    ASSERT_EQ(r.status, 0) << machine << ": " << r.err;
    EXPECT_TRUE(has(r.err, "--io counts iio_inbound_read_bw, iio_inbound_write_bw, iio_outbound_write_bw, " + used))
        << machine << ": " << r.err;
    EXPECT_FALSE(has(r.err, not_used)) << machine << ": " << r.err;
  }
}

TEST(PcmIoView, RefusesWhatItDoesNotGoWith) {
  test::BundledRig rig("clx-2s");
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--io", "-M", "iio_inbound_read_bw"}, {"--io", "--per-device"}, {"--io", "--memory"}}) {
    auto args = extra;
    args.insert(args.end(), {"--duration", "1"});
    EXPECT_EQ(test::run_tool("pmu-raw", rig.args(args)).status, 2) << extra[1];
  }
}
