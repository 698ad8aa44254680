// pmu-raw end to end on the bundled Arm machines (CoreSight on Grace and Tegra410, the Tegra410
// blocks outside CoreSight, DesignWare on Yitian), against pmu-sim processes: the vendor guides'
// command lines as written, exact counts, and the register image unchanged afterwards.
#include <gtest/gtest.h>

#include <csignal>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/bundled_rig.h"
#include "support/register_image.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

using Bundled = test::BundledRig;

}  // namespace

TEST(RawArmEndToEnd, GraceGuideCommandLinesRunAsWritten) {
  Bundled m("grace-2s");
  test::SimProcess sim(m.root,
                       {"--rate", "nvidia_grace_scf:0x1a5=300000000", "--rate", "nvidia_grace_pcie:0x0=500000000"});
  // Grace guide: "perf stat -a -e ... nvidia_pcie_pmu_0/rd_bytes_loc,root_port=0x100/ ..." with -I 1000.
  auto r = test::run_tool("pmu-raw", m.args({"-a", "-e", "nvidia_scf_pmu_0/cmem_rd_data/", "-e",
                                             "nvidia_pcie_pmu_0/rd_bytes_loc,root_port=0x100/", "-I", "1000",
                                             "--interval-count", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1.000000000,300000000,,nvidia_scf_pmu_0/cmem_rd_data/,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2.000000000,500000000,,nvidia_pcie_pmu_0/rd_bytes_loc,root_port=0x100/,"), std::string::npos)
      << r.out;
  // Grace guide: duration_time and groups, over a command.
  auto g = test::run_tool(
      "pmu-raw", m.args({"-a", "-e",
                         "duration_time,{nvidia_scf_pmu_0/cmem_wr_total_bytes/,nvidia_scf_pmu_0/cmem_rd_data/},"
                         "{nvidia_scf_pmu_1/remote_socket_wr_total_bytes/,nvidia_scf_pmu_1/remote_socket_rd_data/}",
                         "-e", "nvidia_scf_pmu_0/event=cycles/", "-x", ",", "--",
                         std::string(PMUKIT_TOOLS_DIR) + "/pmu-sim", "advance", m.root.string(), "168"}));
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_NE(g.out.find("168000000,ns,duration_time"), std::string::npos) << g.out;
  EXPECT_NE(g.out.find("50400000,,nvidia_scf_pmu_0/cmem_rd_data/"), std::string::npos) << g.out;
  EXPECT_NE(g.out.find("168000000,,nvidia_scf_pmu_0/event=cycles/"), std::string::npos) << g.out;
  // Ctrl-C in the middle of an interval run: every CoreSight register back as it was.
  test::ToolProcess raw("pmu-raw", m.args({"-a", "-e", "nvidia_scf_pmu_1/cmem_rd_data/", "-e",
                                           "nvidia_pcie_pmu_1/rd_bytes_loc,root_port=0x3/", "-I", "100"}));
  ASSERT_FALSE(raw.read_line().empty());
  raw.signal(SIGINT);
  EXPECT_EQ(raw.wait(), 128 + SIGINT) << raw.err();  // ended by the signal, as perf stat
  EXPECT_EQ(m.image_change(), "");
}

TEST(RawArmEndToEnd, Tegra410PmusIncludingBlocksOutsideCoreSight) {
  Bundled m("t410-2s");
  test::SimProcess sim(m.root, {"--rate", "nvidia_t410_cmem_latency:0x1=1000", "--rate",
                                "nvidia_t410_cmem_latency:0x2=250000", "--rate", "nvidia_t410_nvlink_c2c:0x2=7"});
  auto r = test::run_tool(
      "pmu-raw", m.args({"-a", "-e",
                         "{nvidia_cmem_latency_pmu_0/rd_req/,nvidia_cmem_latency_pmu_0/rd_cum_outs/"
                         ",nvidia_cmem_latency_pmu_0/cycles/}",
                         "-e", "nvidia_nvlink_c2c_pmu_0/in_rd_req/", "-e",
                         "nvidia_pcie_pmu_0_rc_4/event=0x4,src_bdf=0x0180,src_bdf_en=0x1/", "-e",
                         "nvidia_ucf_pmu_1/event=0x0,src_loc_noncpu=0x1,dst_rem=0x1/", "-e",
                         "nvidia_pcie_tgt_pmu_0_rc_0/event=0x0,dst_rp_mask=0x3/", "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("84000,,nvidia_cmem_latency_pmu_0/rd_req/"), std::string::npos) << r.out;  // 14 x 3 MCs
  EXPECT_NE(r.out.find("21000000,,nvidia_cmem_latency_pmu_0/rd_cum_outs/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("196,,nvidia_nvlink_c2c_pmu_0/in_rd_req/"), std::string::npos) << r.out;  // 14 instances
  EXPECT_NE(r.out.find("2000000,,nvidia_pcie_tgt_pmu_0_rc_0/event=0x0,dst_rp_mask=0x3/"), std::string::npos) << r.out;
  auto addr = test::run_tool("pmu-raw", m.args({"-e",
                                                "nvidia_pcie_tgt_pmu_0_rc_1/event=0x1,dst_addr_base=0x10000,"
                                                "dst_addr_mask=0xFFF00,dst_addr_en=0x1/",
                                                "--duration", "1"}));
  // The direct driver refuses the address filter, and perf does not count a snapshot: one error
  // that says what is missing and where it would be counted, not a detour through perf.
  // SIGTERM in the middle of a run on the blocks outside CoreSight and a PCIE-TGT filter.
  test::ToolProcess raw("pmu-raw", m.args({"-a", "-e", "nvidia_cmem_latency_pmu_1/rd_cum_outs/", "-e",
                                           "nvidia_nvlink_c2c_pmu_1/in_rd_req/", "-e",
                                           "nvidia_pcie_tgt_pmu_1_rc_2/event=0x0,dst_rp_mask=0x1/", "-I", "100"}));
  ASSERT_FALSE(raw.read_line().empty());
  raw.signal(SIGTERM);
  EXPECT_EQ(raw.wait(), 128 + SIGTERM) << raw.err();  // ended by the signal, as perf stat
  EXPECT_EQ(m.image_change(), "");
  EXPECT_NE(addr.status, 0);
  EXPECT_EQ(addr.err.find("unknown term"), std::string::npos) << addr.err;
  EXPECT_NE(addr.err.find("nvidia_pcie_tgt_pmu_0_rc_1: dst_addr_en needs the PCIE-TGT address-filter registers"),
            std::string::npos)
      << addr.err;
  EXPECT_NE(addr.err.find("perf does not count a snapshot"), std::string::npos) << addr.err;
  EXPECT_EQ(m.image_change(), "");
}

TEST(RawArmEndToEnd, YitianRootPortPayloadAndSigint) {
  Bundled m("yitian");
  test::SimProcess sim(m.root);
  auto r = test::run_tool(
      "pmu-raw", m.args({"-e", "dwc_rootport_10/rx_pcie_tlp_data_payload/", "-e",
                         "dwc_rootport_3018/eventid=0x600,type=1,lane=0/", "--duration", "15.854", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  // 3.39e7 16-byte units per second for 15.854 s (Alibaba Yitian 710 PCIe PMU guide's fio run): the kernel's count is
  // bytes.
  EXPECT_NE(r.out.find(std::to_string(static_cast<std::uint64_t>(33'900'000 * 15.854) * 16) + ",,dwc_rootport_10/"),
            std::string::npos)
      << r.out;
  // Alibaba Yitian 710 PCIe PMU guide's own command line, with the Anolis OS kernel's PMU name for root port 00:02.0
  // and its event name's capitals: counted in 16-byte units, as that kernel reports them.
  auto anolis =
      test::run_tool("pmu-raw", m.args({"-a", "-e", "pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/", "--duration", "15.854"}));
  ASSERT_EQ(anolis.status, 0) << anolis.err;
  EXPECT_NE(anolis.out.find("537,450,600       pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/"), std::string::npos)
      << anolis.out;
  EXPECT_NE(
      test::run_tool("pmu-raw", m.args({"-e", "pcie_bdf_10/Rx_PCIe_TLP_Data_Payload/", "--duration", "1"})).status,
      0);  // 00:00.10 does not exist: the alias is the bus/device/function, not the sbdf
  test::ToolProcess raw("pmu-raw", m.args({"-e", "dwc_rootport_10/tx_pcie_tlp_data_payload/", "-I", "100"}));
  ASSERT_FALSE(raw.read_line().empty());
  raw.signal(SIGINT);
  EXPECT_EQ(raw.wait(), 128 + SIGINT) << raw.err();  // ended by the signal, as perf stat
  EXPECT_EQ(m.image_change(), "");
}

// A DesignWare lane counter is 32 bits with no overflow flag: 3e7 TLPs/s for 200 s is 6e9, which
// passes 2^32 once, so one read at the end alone would report 6e9 mod 2^32 = 1705032704. pmu-raw
// reads such counters often enough (in a --duration run and in intervals longer than the wrap
// time alike) and reports the whole count.
TEST(RawArmEndToEnd, ThirtyTwoBitLaneCountersNeverWrapUnseen) {
  Bundled m("yitian");
  test::SimProcess sim(m.root, {"--rate", "dwc_pcie:0x70b=30000000"});
  auto r = test::run_tool("pmu-raw",
                          m.args({"-e", "dwc_rootport_3018/rx_memory_write,lane=0/", "-e",
                                  "dwc_rootport_3018/rx_pcie_tlp_data_payload/", "--duration", "200", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("6000000000,,dwc_rootport_3018/rx_memory_write,lane=0/"), std::string::npos) << r.out;
  // 3.39e7 16-byte units per second in the 64-bit time-based counter, as bytes.
  EXPECT_NE(r.out.find(std::to_string(33'900'000ull * 200 * 16) + ",,dwc_rootport_3018/rx_pcie"), std::string::npos)
      << r.out;
  auto i = test::run_tool("pmu-raw", m.args({"-e", "dwc_rootport_3018/rx_memory_write,lane=0/", "-I", "300000",
                                             "--interval-count", "2", "-x", ","}));
  ASSERT_EQ(i.status, 0) << i.err;
  EXPECT_NE(i.out.find("300.000000000,9000000000,,dwc_rootport_3018/rx_memory_write,lane=0/"), std::string::npos)
      << i.out;
  EXPECT_NE(i.out.find("600.000000000,9000000000,,"), std::string::npos) << i.out;
  EXPECT_EQ(m.image_change(), "");
}
