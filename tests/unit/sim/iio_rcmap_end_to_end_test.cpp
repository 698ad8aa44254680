// pmu-rcmap's example event for an NVMe drive on the bundled SPR and GNR machines is runnable as
// written: pmu-raw counts it against pmu-sim (real processes, virtual time) and every register is
// back to its value afterwards. The filter bits land in the counter control as the kernel's IIO
// formats place them (ch_mask config:36-47, fc_mask config:48-50, Linux snr_uncore_iio_formats_attr).
#include <gtest/gtest.h>

#include <ostream>

#include <nlohmann/json.hpp>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

struct Case {
  const char* machine;
  const char* nvme;
  const char* pmu;      // the stack's IIO PMU (PCM spr_xcc / srf_sad_to_pmu_id_mapping)
  const char* ch_mask;  // 1 << part
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.machine << " " << c.nvme;
}

}  // namespace

class IioRcmapEndToEnd : public ::testing::TestWithParam<Case> {};

TEST_P(IioRcmapEndToEnd, ExampleEventCountsAndRestores) {
  const Case& c = GetParam();
  test::BundledRig rig(c.machine);
  auto map = test::run_tool("pmu-rcmap", rig.args({"--json", c.nvme}));
  ASSERT_EQ(map.status, 0) << map.err;
  auto dev = nlohmann::json::parse(map.out)["devices"][0];
  EXPECT_EQ(dev["mapping"]["pmu"], c.pmu);
  EXPECT_EQ(dev["mapping"]["unit"], c.pmu);  // joined with the discovered IIO unit
  EXPECT_EQ(dev["mapping"]["ch_mask"], c.ch_mask);
  std::string example = dev["filters"][0]["example"];
  EXPECT_EQ(example, std::string(c.pmu) + "/event=0x83,umask=0x01,ch_mask=" + c.ch_mask + ",fc_mask=0x7/");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"-e", example, "--duration", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(example), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(",0,"), std::string::npos) << r.out;  // it counted
  EXPECT_EQ(rig.image_change(), "");
}

INSTANTIATE_TEST_SUITE_P(Bundled, IioRcmapEndToEnd,
                         ::testing::Values(Case{"spr-2s", "0000:16:00.0", "uncore_iio_2", "0x1"},
                                           Case{"gnr-2s", "0000:12:00.0", "uncore_iio_3", "0x4"}),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return std::string(p.param.machine).substr(0, 3);
                         });
