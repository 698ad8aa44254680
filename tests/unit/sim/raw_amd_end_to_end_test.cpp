// pmu-raw end to end on the bundled AMD machines against pmu-sim in virtual time: exact counts
// (24 channels x 1e8 read CAS/s, rates.json), the DRAM bandwidth metrics at exactly the modelled
// rate, Milan's 8 DF channel events taking turns on 4 counters, and every MSR back as it was.
#include <gtest/gtest.h>

#include <csignal>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

TEST(RawAmdEndToEnd, GenoaUmcCountsAndDramBandwidthAreExact) {
  test::BundledRig m("genoa-2s");
  test::SimProcess sim(m.root);
  auto r = test::run_tool("pmu-raw", m.args({"-e", "amd_umc/umc_cas_cmd.rd/", "-e", "amd_l3/event=0x04,umask=0xff/",
                                             "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("4800000000,,amd_umc/umc_cas_cmd.rd/"), std::string::npos) << r.out;        // 24 x 1e8 x 2 s
  EXPECT_NE(r.out.find("9600000000,,amd_l3/event=0x04,umask=0xff/"), std::string::npos) << r.out;  // 24 x 2e8 x 2 s
  auto bw = test::run_tool("pmu-raw", m.args({"-M", "amd_dram_read_bw", "--per-socket", "--duration", "1"}));
  ASSERT_EQ(bw.status, 0) << bw.err;
  EXPECT_NE(bw.out.find("S0                 76.800 GB/s  amd_dram_read_bw (amd_umc)"), std::string::npos) << bw.out;
  EXPECT_NE(bw.out.find("S1                 76.800 GB/s  amd_dram_read_bw (amd_umc)"), std::string::npos) << bw.out;
  EXPECT_EQ(m.image_change(), "");
}

TEST(RawAmdEndToEnd, MilanDataFabricEventsTakeTurnsAndSumExactly) {
  test::BundledRig m("milan-2s");
  test::SimProcess sim(m.root);
  auto r = test::run_tool("pmu-raw", m.args({"-M", "amd_zen3_df_dram_bw", "--duration", "2"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("8 events in 2 sets"), std::string::npos) << r.out;
  // 8 channel events x 1e8/s (rates.json) x 64 B x 2 sockets = 102.4 GB/s, though each counts half the time.
  EXPECT_NE(r.out.find("102.400 GB/s  amd_zen3_df_dram_bw (amd_df)"), std::string::npos) << r.out;
  EXPECT_EQ(m.image_change(), "");
}

TEST(RawAmdEndToEnd, CtrlCPutsEveryMsrBack) {
  test::BundledRig m("genoa-2s");
  test::SimProcess sim(m.root);
  test::ToolProcess raw(
      "pmu-raw", m.args({"-e", "amd_umc_3/umc_cas_cmd.wr/", "-e", "amd_df/event=0x1f,umask=0x7fe/", "-I", "100"}));
  ASSERT_FALSE(raw.read_line().empty());
  raw.signal(SIGINT);
  EXPECT_EQ(raw.wait(), 128 + SIGINT) << raw.err();
  EXPECT_EQ(m.image_change(), "");
}

// The default rates (platforms/sim/rates.json) agree with each other: on every L3, hits (0xfe04) +
// misses (0x104) = lookups (0xff04); Milan's 8 DF channel events at 1e8 beats/s each are 51.2 GB/s
// per socket, however the 4 counters take turns.
TEST(RawAmdEndToEnd, MilanDefaultRatesAddUp) {
  test::BundledRig m("milan-2s");
  test::SimProcess sim(m.root);
  auto l3 =
      test::run_tool("pmu-raw", m.args({"-e", "amd_l3/event=0x04,umask=0xfe/", "-e", "amd_l3/event=0x04,umask=0x01/",
                                        "-e", "amd_l3/event=0x04,umask=0xff/", "--duration", "1", "-x", ","}));
  ASSERT_EQ(l3.status, 0) << l3.err;
  EXPECT_NE(l3.out.find("2880000000,,amd_l3/event=0x04,umask=0xfe/"), std::string::npos) << l3.out;  // 16 x 1.8e8
  EXPECT_NE(l3.out.find("320000000,,amd_l3/event=0x04,umask=0x01/"), std::string::npos) << l3.out;   // 16 x 2e7
  EXPECT_NE(l3.out.find("3200000000,,amd_l3/event=0x04,umask=0xff/"), std::string::npos) << l3.out;  // 16 x 2e8
  auto df = test::run_tool("pmu-raw", m.args({"-M", "amd_zen3_df_dram_bw", "--per-socket", "--duration", "2"}));
  ASSERT_EQ(df.status, 0) << df.err;
  EXPECT_NE(df.out.find("S0                 51.200 GB/s  amd_zen3_df_dram_bw (amd_df)"), std::string::npos) << df.out;
  EXPECT_EQ(m.image_change(), "");
}
