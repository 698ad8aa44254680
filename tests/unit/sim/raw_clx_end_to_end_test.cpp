// pmu-raw end to end against pmu-sim on the bundled Cascade Lake machine (clx-2s, issue 32): the
// memory controller channels of the kernel's fixed tables (skx_uncore_imc, PCI config space) and
// a CHA (skx_uncore_chabox, MSRs) count exactly in virtual time, and the register image is byte for
// byte what it was. Rates are platforms/sim/rates.json's intel_skx_imc rules: cas_count_read
// (event 0x04, umask 0x03) 8e7/s, cas_count_write (umask 0x0c) 4e7/s, clockticks (event 0x00)
// 1.466e9/s, each box.
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

TEST(RawClxEndToEnd, ImcCountsAreExactInVirtualTime) {
  test::BundledRig rig("clx-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool(
      "pmu-raw", rig.args({"-e", "uncore_imc/cas_count_read/", "-e", "uncore_imc_2/event=0x04,umask=0x0c,name=wr2/",
                           "-e", "uncore_imc_5/clockticks/", "-I", "1000", "--interval-count", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 6u) << r.out;
  // 12 channels (6 a socket) x 8e7 CAS/s x 64 bytes = 58593.75 MiB per second.
  EXPECT_EQ(out[0], "1.000000000,58593.75,MiB,uncore_imc/cas_count_read/,12000000000,100.00,,");
  EXPECT_EQ(out[1], "1.000000000,80000000,,wr2,2000000000,100.00,,");  // channel 2 of both sockets
  EXPECT_EQ(out[2], "1.000000000,2932000000,,uncore_imc_5/clockticks/,2000000000,100.00,,");
  EXPECT_EQ(out[3], "2.000000000,58593.75,MiB,uncore_imc/cas_count_read/,12000000000,100.00,,");
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawClxEndToEnd, ChaOverMsrCountsAndRestores) {
  test::BundledRig rig("clx-2s");
  test::SimProcess sim(rig.root, {"--rate", "intel_skx_cha:0x0000=1000"});
  auto r =
      test::run_tool("pmu-raw", rig.args({"-e", "uncore_cha_27/event=0x00,name=clk27/", "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 1u) << r.out;
  EXPECT_EQ(out[0], "4000,,clk27,4000000000,100.00,,");  // 2 sockets x 2 s x 1000
  EXPECT_EQ(rig.image_change(), "");
}
