// Grace metrics against NVIDIA Grace Performance Tuning Guide's own perf runs: the byte conversions it prints, and the
// rates of the dd runs it measured, plus hand-computed values for the formulas it gives no numbers for.
#include <gtest/gtest.h>

#include "metric_cases.h"

namespace pmukit::test {

std::vector<MetricCase> grace_cases() {
  const std::string guide = "NVIDIA Grace Performance Tuning Guide perf stat, ";
  return {
      // "168225760 ns duration_time, 10515321 nvidia_scf_pmu_0/event=cycles/,
      //  191567 .../cmem_wb_access/, 0 .../cmem_wr_access/"
      {"scf_frequency",
       {{"CYCLES", 10515321}},
       168225760,
       10515321.0 / 168225760.0,
       guide + "cmem_write_test: 10,515,321 cycles in 168,225,760 ns"},
      {"scf_local_mem_write_util",
       {{"CMEM_WB_ACCESS", 191567}, {"CMEM_WR_ACCESS", 0}, {"CYCLES", 10515321}},
       168225760,
       191567.0 / (8.0 * 10515321.0) * 100.0,
       guide + "cmem_write_test: 191,567 write-backs, 0 writes, 8 per cycle"},
      // Local write: "shows 1,009,299,148 bytes of CPU writes to socket-0 memory". the guide's
      // duration_time line reads 27,496,157 ns but its "0.127496157 seconds time elapsed" and dd's
      // 0.125672 s say a leading 1 was lost; 127,496,157 ns is used.
      {"scf_local_mem_write_bw",
       {{"CMEM_WR_TOTAL_BYTES", 1009299148}},
       127496157,
       1009299148.0 / 127496157.0,
       guide + "socket-0 CPU write to socket-0 DRAM"},
      // Local read: "35,572,420 x 32 bytes = 1,138,317,440 bytes", duration 88,826,372 ns.
      {"scf_local_mem_read_bw",
       {{"CMEM_RD_DATA", 35572420}},
       88826372,
       1138317440.0 / 88826372.0,
       guide + "socket-0 CPU read from socket-0 DRAM"},
      // Remote write: socket 1 "shows 961,728,219 bytes of remote writes", 172,847,464 ns; socket 0
      // sees "993,278,696 bytes of any CPU writes to socket-0 memory".
      {"scf_remote_mem_write_bw",
       {{"REMOTE_SOCKET_WR_TOTAL_BYTES", 961728219}},
       172847464,
       961728219.0 / 172847464.0,
       guide + "socket-1 CPU write to socket-0 DRAM, on socket 1"},
      {"scf_local_mem_write_bw",
       {{"CMEM_WR_TOTAL_BYTES", 993278696}},
       172847464,
       993278696.0 / 172847464.0,
       guide + "socket-1 CPU write to socket-0 DRAM, on socket 0"},
      // Remote read: "36,189,087 x 32 bytes = 1,158,050,784 bytes" on socket 1 and
      // "33,542,984 x 32 bytes = 1,073,375,488 bytes" on socket 0, 134,526,031 ns.
      {"scf_remote_mem_read_bw",
       {{"REMOTE_SOCKET_RD_DATA", 36189087}},
       134526031,
       1158050784.0 / 134526031.0,
       guide + "socket-1 CPU read from socket-0 DRAM, on socket 1"},
      {"scf_local_mem_read_bw",
       {{"CMEM_RD_DATA", 33542984}},
       134526031,
       1073375488.0 / 134526031.0,
       guide + "socket-1 CPU read from socket-0 DRAM, on socket 0"},

      // By hand: 1 GiB written to GPU memory in 250 ms; 1 GiB read (2^25 beats) in 125 ms.
      {"scf_local_gpu_mem_write_bw", {{"GMEM_WR_TOTAL_BYTES", 1073741824}}, 250e6, 4.294967296, "by hand"},
      {"scf_local_gpu_mem_read_bw", {{"GMEM_RD_DATA", 33554432}}, 125e6, 8.589934592, "by hand"},
      // Utilizations by hand: accesses / (limit * cycles) * 100.
      {"scf_local_gpu_mem_write_util",
       {{"GMEM_WB_ACCESS", 3e6}, {"GMEM_WR_ACCESS", 1e6}, {"CYCLES", 2e7}},
       1e9,
       5.0,
       "by hand: 4e6 / (4 * 2e7) = 5%"},
      {"scf_remote_mem_write_util_s0",
       {{"SOCKET_1_WB_ACCESS", 1.5e6}, {"SOCKET_1_WR_ACCESS", 0.5e6}, {"CYCLES", 1e7}},
       1e9,
       10.0,
       "by hand: 2e6 / (2 * 1e7) = 10%"},
      {"scf_remote_mem_write_util_s1",
       {{"SOCKET_0_WB_ACCESS", 4e5}, {"SOCKET_0_WR_ACCESS", 1e5}, {"CYCLES", 1e6}},
       1e9,
       25.0,
       "by hand: 5e5 / (2 * 1e6) = 25%"},
      {"scf_local_mem_read_util",
       {{"CMEM_RD_ACCESS", 4e6}, {"CYCLES", 1e7}},
       1e9,
       5.0,
       "by hand: 4e6 / (8 * 1e7) = 5%"},
      {"scf_local_gpu_mem_read_util",
       {{"GMEM_RD_ACCESS", 1e6}, {"CYCLES", 1e7}},
       1e9,
       2.5,
       "by hand: 1e6 / (4 * 1e7) = 2.5%"},
      {"scf_remote_mem_read_util_s0",
       {{"SOCKET_1_RD_ACCESS", 3e6}, {"CYCLES", 1e7}},
       1e9,
       15.0,
       "by hand: 3e6 / (2 * 1e7) = 15%"},
      {"scf_remote_mem_read_util_s1",
       {{"SOCKET_0_RD_ACCESS", 1e6}, {"CYCLES", 1e7}},
       1e9,
       5.0,
       "by hand: 1e6 / (2 * 1e7) = 5%"},
      // Latencies by hand: outstanding / accesses cycles at cycles / duration GHz.
      {"scf_local_mem_read_latency",
       {{"CMEM_RD_OUTSTANDING", 3.6e9}, {"CMEM_RD_ACCESS", 2e7}, {"CYCLES", 1.5e8}},
       1e8,
       120.0,
       "by hand: 180 cycles at 1.5 GHz"},
      {"scf_local_gpu_mem_read_latency",
       {{"GMEM_RD_OUTSTANDING", 8e8}, {"GMEM_RD_ACCESS", 2e6}, {"CYCLES", 2e8}},
       1e8,
       200.0,
       "by hand: 400 cycles at 2 GHz"},
      {"scf_remote_mem_read_latency_s0",
       {{"SOCKET_1_RD_OUTSTANDING", 5e8}, {"SOCKET_1_RD_ACCESS", 1e6}, {"CYCLES", 1.25e8}},
       1e8,
       400.0,
       "by hand: 500 cycles at 1.25 GHz"},
      {"scf_remote_mem_read_latency_s1",
       {{"SOCKET_0_RD_OUTSTANDING", 9e8}, {"SOCKET_0_RD_ACCESS", 3e6}, {"CYCLES", 1e8}},
       1e8,
       300.0,
       "by hand: 300 cycles at 1 GHz"},

      // PCIe, socket 0 root port 8 (root_port=0x100): 1,168,472,064 rd_bytes_loc, 31,250,176
      // wr_bytes_loc, 49,152 rd_bytes_rem, 0 wr_bytes_rem in 1,966,391,711 ns.
      {"pcie_rp_read_bw",
       {{"RD_BYTES_LOC", 1168472064}, {"RD_BYTES_REM", 49152}},
       1966391711,
       (1168472064.0 + 49152.0) / 1966391711.0,
       guide + "socket-0 PCIe read from socket-0 DRAM"},
      {"pcie_rp_write_bw",
       {{"WR_BYTES_LOC", 31250176}, {"WR_BYTES_REM", 0}},
       1966391711,
       31250176.0 / 1966391711.0,
       guide + "socket-0 PCIe read from socket-0 DRAM"},
      {"pcie_rp_bidir_bw",
       {{"RD_BYTES_LOC", 1168472064}, {"RD_BYTES_REM", 49152}, {"WR_BYTES_LOC", 31250176}, {"WR_BYTES_REM", 0}},
       1966391711,
       (1168472064.0 + 49152.0 + 31250176.0) / 1966391711.0,
       guide + "socket-0 PCIe read from socket-0 DRAM"},
      // Socket 1 reading socket-0 DRAM: 6,398,720 local and 1,073,762,304 remote bytes in
      // 735,201,612 ns.
      {"pcie_rp_read_bw",
       {{"RD_BYTES_LOC", 6398720}, {"RD_BYTES_REM", 1073762304}},
       735201612,
       (6398720.0 + 1073762304.0) / 735201612.0,
       guide + "socket-1 PCIe read from socket-0 DRAM"},
      {"pcie_rp_frequency", {{"CYCLES", 1.5e9}}, 1e9, 1.5, "by hand"},
      {"pcie_rp_read_util",
       {{"RD_REQ_LOC", 3e6}, {"RD_REQ_REM", 1e6}, {"CYCLES", 1e7}},
       1e9,
       4.0,
       "by hand: 4e6 / (10 * 1e7) = 4%"},
      {"pcie_rp_write_util",
       {{"WR_REQ_LOC", 2e6}, {"WR_REQ_REM", 0.5e6}, {"CYCLES", 1e7}},
       1e9,
       2.5,
       "by hand: 2.5e6 / (10 * 1e7) = 2.5%"},
      {"pcie_rp_local_read_latency",
       {{"RD_CUM_OUTS_LOC", 6e8}, {"RD_REQ_LOC", 1e6}, {"CYCLES", 1e9}},
       5e8,
       300.0,
       "by hand: 600 cycles at 2 GHz"},
      {"pcie_rp_remote_read_latency",
       {{"RD_CUM_OUTS_REM", 4.5e8}, {"RD_REQ_REM", 5e5}, {"CYCLES", 1.5e9}},
       1e9,
       600.0,
       "by hand: 900 cycles at 1.5 GHz"},

      // NVLink-C2C0, GPU copy engine: "4,026,531,840 bytes of writes to DRAM" (0.777059774 s
      // elapsed; no duration_time was counted) and "4,234,927,104 bytes of reads" (0.771266524 s).
      {"nvlink_c2c_write_bw",
       {{"WR_BYTES_LOC", 4026531840}},
       777059774,
       4026531840.0 / 777059774.0,
       guide + "GPU write to CPU DRAM"},
      {"nvlink_c2c_read_bw",
       {{"RD_BYTES_LOC", 4234927104}},
       771266524,
       4234927104.0 / 771266524.0,
       guide + "GPU read from CPU DRAM"},
      {"nvlink_c2c_read_bw",
       {{"RD_BYTES_LOC", 1074057216}},
       735201612,
       1074057216.0 / 735201612.0,
       guide + "socket-1 PCIe read from socket-0 DRAM, seen by nvidia_nvlink_c2c0_pmu_0"},
      // the guide's total_bytes_loc counter is the bidirectional total: 208,418,816 + 4,026,531,840.
      {"nvlink_c2c_bidir_bw",
       {{"RD_BYTES_LOC", 208418816}, {"WR_BYTES_LOC", 4026531840}},
       777059774,
       4234950656.0 / 777059774.0,
       guide + "GPU write to CPU DRAM, total_bytes_loc 4,234,950,656"},
      {"nvlink_c2c_bidir_bw",
       {{"RD_BYTES_LOC", 4234927104}, {"WR_BYTES_LOC", 201326592}},
       771266524,
       4436253696.0 / 771266524.0,
       guide + "GPU read from CPU DRAM, total_bytes_loc 4,436,253,696"},
      {"nvlink_c2c_frequency", {{"CYCLES", 1.8e9}}, 1e9, 1.8, "by hand"},
      {"nvlink_c2c_read_util", {{"RD_REQ_LOC", 5e7}, {"CYCLES", 1e8}}, 1e9, 5.0, "by hand: 5e7 / (10 * 1e8)"},
      {"nvlink_c2c_write_util", {{"WR_REQ_LOC", 2e7}, {"CYCLES", 1e8}}, 1e9, 2.0, "by hand: 2e7 / (10 * 1e8)"},
      {"nvlink_c2c_read_latency",
       {{"RD_CUM_OUTS_LOC", 2.5e9}, {"RD_REQ_LOC", 1e7}, {"CYCLES", 2e9}},
       1e9,
       125.0,
       "by hand: 250 cycles at 2 GHz"},
  };
}

}  // namespace pmukit::test

using pmukit::test::catalog;

namespace {

double value(const char* metric, std::map<std::string, double> counts, double ns) {
  auto r = catalog().at(metric).evaluate(counts, ns);
  EXPECT_TRUE(r.valid) << r.problem;
  return r.value;
}

}  // namespace

// the guide's conversion, read back from the metric: GB/s times nanoseconds is bytes.
TEST(GraceGuide, LocalReadOf35572420BeatsIs1138317440Bytes) {
  double gbps = value("scf_local_mem_read_bw", {{"CMEM_RD_DATA", 35572420}}, 88826372);
  EXPECT_DOUBLE_EQ(gbps * 88826372, 1138317440.0);
  EXPECT_NEAR(gbps, 12.815, 0.0005);
}

// dd timed only its own copy, perf the whole command, so the rates differ by a few percent; a unit
// mistake (MB/s, bits, a missing * 32) would be off by far more.
TEST(GraceGuide, BandwidthsAgreeWithTheRatesDdReported) {
  const double GiB = 1073741824.0;
  EXPECT_NEAR(value("scf_local_mem_write_bw", {{"CMEM_WR_TOTAL_BYTES", 1009299148}}, 127496157), GiB / 0.125672e9,
              0.15 * 8.5);
  EXPECT_NEAR(value("scf_local_mem_read_bw", {{"CMEM_RD_DATA", 35572420}}, 88826372), GiB / 0.0872731e9, 0.15 * 12.3);
  EXPECT_NEAR(value("scf_remote_mem_write_bw", {{"REMOTE_SOCKET_WR_TOTAL_BYTES", 961728219}}, 172847464),
              GiB / 0.171349e9, 0.15 * 6.3);
  EXPECT_NEAR(value("scf_remote_mem_read_bw", {{"REMOTE_SOCKET_RD_DATA", 36189087}}, 134526031), GiB / 0.133185e9,
              0.15 * 8.1);
  EXPECT_NEAR(value("pcie_rp_read_bw", {{"RD_BYTES_LOC", 1168472064}, {"RD_BYTES_REM", 49152}}, 1966391711),
              GiB / 1.96463e9, 0.15 * 0.547);
}

// "The remote reads are also captured by the destination (socket-0) NVLINK C2C0 PMU": the two PMUs
// of the guide's remote PCIe read agree to 0.03%.
TEST(GraceGuide, RemotePcieReadIsSeenByBothPmus) {
  double on_pcie = value("pcie_rp_read_bw", {{"RD_BYTES_LOC", 0}, {"RD_BYTES_REM", 1073762304}}, 735201612);
  double on_c2c = value("nvlink_c2c_read_bw", {{"RD_BYTES_LOC", 1074057216}}, 735201612);
  EXPECT_NEAR(on_pcie, on_c2c, on_c2c * 0.0005);
}

// The per-socket variants exist for the socket the guide measures them on, and only there.
TEST(GraceGuide, SocketVariantsRunOnTheirSocketOnly) {
  const auto& s0 = catalog().at("scf_remote_mem_read_util_s0");
  const auto& s1 = catalog().at("scf_remote_mem_read_util_s1");
  EXPECT_TRUE(s0.applies_to("nvidia_scf_pmu_0"));
  EXPECT_FALSE(s0.applies_to("nvidia_scf_pmu_1"));
  EXPECT_TRUE(s1.applies_to("nvidia_scf_pmu_1"));
  EXPECT_FALSE(s1.applies_to("nvidia_scf_pmu_0"));
  for (const auto& b : s0.events())
    if (b.variable == "SOCKET_1_RD_ACCESS") {
      EXPECT_EQ(b.events, std::vector<std::string>{"socket_1_rd_access"});
    }
  for (const auto& b : s1.events())
    if (b.variable == "SOCKET_0_RD_ACCESS") {
      EXPECT_EQ(b.events, std::vector<std::string>{"socket_0_rd_access"});
    }
}

// The guide: "if you do not define a root port filter, the metric result is zero". pmukit differs
// (docs/metrics.md): as Linux's nvidia_cspmu.c now does, an event without root_port counts every
// root port, so the metrics need no term; the event and the metric agree.
TEST(GraceGuide, PcieMetricsNeedNoRootPortFilter) {
  int n = 0;
  for (const auto* m : catalog().for_pmu("nvidia_pcie_pmu_%u")) {
    EXPECT_TRUE(m->spec().required_terms.empty()) << m->name();
    ++n;
  }
  EXPECT_EQ(n, 8);
}
