// pmu-raw -M and --event-file end to end against pmu-sim with known rates: each metric's value
// follows from the modelled rates and the formula in platforms/metrics.
#include <gtest/gtest.h>

#include "pmukit/snapshot/machine_spec.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {
using Bundled = test::BundledRig;
}  // namespace

TEST(RawMetrics, IntelImcBandwidthFromCasCounts) {
  Bundled m("spr-2s");
  test::SimProcess sim(m.root);  // cas_count_read 1e8/s and cas_count_write 5e7/s per box
  auto r = test::run_tool("pmu-raw", m.args({"-M", "spr_imc_read_bw,spr_imc_write_bw", "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  // uncore_imc_3 counts box 3 of both sockets: 2 x 1e8 CAS/s x 64 B = 12.8 GB/s (bytes per ns).
  EXPECT_NE(r.out.find("spr_imc_read_bw (uncore_imc_3),,,12.800,GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("spr_imc_write_bw (uncore_imc_7),,,6.400,GB/s"), std::string::npos) << r.out;
  auto s = test::run_tool("pmu-raw", m.args({"-M", "spr_imc_read_bw", "--duration", "1", "--per-socket", "-x", ","}));
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("S1,,,spr_imc_read_bw (uncore_imc_0),,,6.400,GB/s"), std::string::npos) << s.out;
  // A socket's DRAM bandwidth, as PCM shows it: all 8 channels of S1, 8 x 1e8 x 64 B; the machine: 2 sockets.
  auto d = test::run_tool("pmu-raw", m.args({"-M", "spr_dram_read_bw", "--duration", "1", "--per-socket", "-x", ","}));
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("S1,,,spr_dram_read_bw (uncore_imc),,,51.200,GB/s"), std::string::npos) << d.out;
  EXPECT_EQ(d.out.find("uncore_imc_"), std::string::npos) << "one line per socket: " << d.out;
  auto w = test::run_tool("pmu-raw", m.args({"-M", "spr_dram_write_bw", "--duration", "1", "-x", ","}));
  ASSERT_EQ(w.status, 0) << w.err;
  EXPECT_NE(w.out.find("spr_dram_write_bw (uncore_imc),,,51.200,GB/s"), std::string::npos) << w.out;
}

TEST(RawMetrics, GraceScfAndPcieMetricsPerSocket) {
  Bundled m("grace-2s");
  test::SimProcess sim(m.root,
                       {"--rate", "nvidia_grace_scf:0x1a5=400000000", "--rate", "nvidia_grace_scf:0x1a6=100000000",
                        "--rate", "nvidia_grace_scf:0x1a7=25000000000", "--rate", "nvidia_grace_pcie:0x0=2000000000"});
  auto r = test::run_tool(
      "pmu-raw", m.args({"-M", "scf_local_mem_read_bw,scf_local_mem_read_util,scf_local_mem_read_latency", "-M",
                         "pcie_rp_read_bw/root_port=0x100/", "-I", "1000", "--interval-count", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("scf_local_mem_read_bw (nvidia_scf_pmu_1),,,12.800,GB/s"), std::string::npos) << r.out;  // x32 B
  // 1e8 accesses/s over 8 x 1e9 cycles/s = 1.25 %; 250 outstanding per access at 1 GHz = 250 ns.
  EXPECT_NE(r.out.find("scf_local_mem_read_util (nvidia_scf_pmu_0),,,1.250,%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("scf_local_mem_read_latency (nvidia_scf_pmu_0),,,250.000,ns"), std::string::npos) << r.out;
  // rd_bytes_loc 2e9/s + rd_bytes_rem at the default 1e6/s.
  EXPECT_NE(r.out.find("pcie_rp_read_bw (nvidia_pcie_pmu_0),,,2.001,GB/s"), std::string::npos) << r.out;
}

TEST(RawMetrics, Tegra410CmemLatencyAndDesignWareBandwidth) {
  Bundled t("t410-2s");
  {
    test::SimProcess sim(t.root, {"--rate", "nvidia_t410_cmem_latency:0x1=1000", "--rate",
                                  "nvidia_t410_cmem_latency:0x2=300000", "--rate", "cycles=2000000000"});
    auto r = test::run_tool("pmu-raw",
                            t.args({"-M", "t410_cmem_read_latency,t410_cmem_frequency", "--duration", "1", "-x", ","}));
    ASSERT_EQ(r.status, 0) << r.err;
    // 300 cycles of outstanding per request at 2 GHz = 150 ns.
    EXPECT_NE(r.out.find("t410_cmem_read_latency (nvidia_cmem_latency_pmu_0),,,150.000,ns"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("t410_cmem_frequency (nvidia_cmem_latency_pmu_1),,,2.000,GHz"), std::string::npos) << r.out;
  }
  Bundled y("yitian");
  test::SimProcess sim(y.root);  // rx payload 3.39e7 units/s = 542.4 MB/s
  auto r = test::run_tool("pmu-raw", y.args({"-M", "dwc_pcie_rx_bw", "--duration", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("dwc_pcie_rx_bw (dwc_rootport_10),,,0.542,GB/s"), std::string::npos) << r.out;
}

TEST(RawMetrics, PerfmonEventFileNamesWork) {
  Bundled m("spr-2s");
  test::SimProcess sim(m.root);
  auto file = (test::source_dir() / "tests/data/events/spr-imc-sample.json").string();
  auto r = test::run_tool("pmu-raw", m.args({"--event-file", file, "-e", "UNC_M_CAS_COUNT.RD", "-e",
                                             "uncore_imc_2/unc_m_cas_count.wr/", "--duration", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  // 16 boxes x 1e8 CAS x 64 bytes; box 2 of both sockets x 5e7 x 64.
  EXPECT_NE(r.out.find("102400000000.00,Bytes,UNC_M_CAS_COUNT.RD,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("6400000000.00,Bytes,uncore_imc_2/unc_m_cas_count.wr/,"), std::string::npos) << r.out;
  // --list-events shows what the file adds, on the PMU each event counts on.
  auto list = test::run_tool("pmu-raw", m.args({"--event-file", file, "--list-events"}));
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("spr-imc-sample.json (--event-file): 3 events for PMUs here\n"), std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("  UNC_M_CAS_COUNT.RD           uncore_imc/event=0x05,umask=0xcf/ (x64 Bytes)"),
            std::string::npos)
      << list.out;
  Bundled grace("grace-2s");
  auto none = test::run_tool("pmu-raw", grace.args({"--event-file", file, "--list-events"}));
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_NE(none.out.find("0 events for PMUs here, 3 for PMUs this machine does not have"), std::string::npos)
      << none.out;
  auto bad = test::run_tool("pmu-raw", m.args({"-M", "no_such_metric", "--duration", "1"}));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("-M 'no_such_metric': no such metric"), std::string::npos) << bad.err;
  // A misspelt metric name: perf's nearest one.
  bad = test::run_tool("pmu-raw", m.args({"-M", "uncore_frequncy", "--duration", "1"}));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("-M 'uncore_frequncy': no such metric (did you mean 'uncore_frequency'?)"), std::string::npos)
      << bad.err;
}
