// pmu-raw end to end against pmu-sim on the bundled Ice Lake-SP machine (icx-2s, issue 32): the
// memory controller channels of the kernel's fixed tables (icx_uncore_imc, MMIO boxes placed from the
// 0x3451 function's config space) and a CHA (icx_uncore_chabox, MSRs at icx_cha_msr_offsets) count
// exactly in virtual time, and the register image is byte for byte what it was. The named events are
// the kernel's (snr_uncore_imc_events, which icx_uncore_imc uses: cas_count_read event=0x04,umask=0x0f,
// cas_count_write event=0x04,umask=0x30, scale 6.103515625e-5 MiB); the rates are
// platforms/sim/rates.json's intel_icx_imc rules: cas_count_read 1e8/s, cas_count_write 5e7/s,
// clockticks (event 0x00) 1.6e9/s, each box; the machine has 12 boxes a socket (num_boxes).
#include <gtest/gtest.h>

#include <sstream>

#include "support/bundled_rig.h"
#include "support/output_lines.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

using test::lines;

}  // namespace

TEST(RawIcxEndToEnd, ImcCountsAreExactInVirtualTime) {
  test::BundledRig rig("icx-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw",
                          rig.args({"-e", "uncore_imc/cas_count_read/", "-e", "uncore_imc/cas_count_write/", "-e",
                                    "uncore_imc_7/clockticks/", "-I", "1000", "--interval-count", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 6u) << r.out;
  // 24 channels (12 a socket) x 1e8 CAS/s x 6.103515625e-5 MiB = 146484.375 MiB per second; writes
  // at 5e7/s: 73242.1875 MiB; channel 7 of both sockets: 2 x 1.6e9 clock ticks.
  EXPECT_EQ(out[0], "1.000000000,146484.38,MiB,uncore_imc/cas_count_read/,24000000000,100.00,,");
  EXPECT_EQ(out[1], "1.000000000,73242.19,MiB,uncore_imc/cas_count_write/,24000000000,100.00,,");
  EXPECT_EQ(out[2], "1.000000000,3200000000,,uncore_imc_7/clockticks/,2000000000,100.00,,");
  EXPECT_EQ(out[3], "2.000000000,146484.38,MiB,uncore_imc/cas_count_read/,24000000000,100.00,,");
  EXPECT_EQ(out[4], "2.000000000,73242.19,MiB,uncore_imc/cas_count_write/,24000000000,100.00,,");
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawIcxEndToEnd, ImcRawEventEqualsTheNamedOne) {
  test::BundledRig rig("icx-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool(
      "pmu-raw", rig.args({"-e", "uncore_imc_11/event=0x04,umask=0x0f,name=rd11/", "--duration", "3", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 1u) << r.out;
  EXPECT_EQ(out[0], "600000000,,rd11,6000000000,100.00,,");  // 2 sockets x 3 s x 1e8
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawIcxEndToEnd, ChaOverMsrCountsAndRestores) {
  test::BundledRig rig("icx-2s");
  test::SimProcess sim(rig.root, {"--rate", "intel_icx_cha:0x0000=1000"});
  auto r =
      test::run_tool("pmu-raw", rig.args({"-e", "uncore_cha_31/event=0x00,name=clk31/", "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 1u) << r.out;
  EXPECT_EQ(out[0], "4000,,clk31,4000000000,100.00,,");  // 2 sockets x 2 s x 1000
  EXPECT_EQ(rig.image_change(), "");
}
