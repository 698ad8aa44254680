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

// perf's uncore_frequency: UNC_CHA_CLOCKTICKS / (source_count(UNC_CHA_CLOCKTICKS) * #num_packages)
// / 1e9 / duration_time, the clock of one CHA: each CHA of every socket ticks at the simulator's
// rate, so the value is that rate in GHz, on the whole machine and on each socket. The clock
// event is 0x01 on Sapphire Rapids and 0x00 on Cascade Lake and Ice Lake-SP.
TEST(RawPerfMetrics, UncoreFrequencyIsOneChasClockOnEachGeneration) {
  for (auto [machine, code] : {std::pair{"spr-2s", "0x0001"}, {"clx-2s", "0x0000"}, {"icx-2s", "0x0000"}}) {
    test::BundledRig m(machine);
    test::SimProcess sim(m.root);
    const auto [cha, kind] = boxes(m, "uncore_cha");
    ASSERT_GT(cha, 0u) << machine;
    const double ghz = sim_rate(kind, code) / 1e9;
    auto r = test::run_tool("pmu-raw", m.args({"-M", "uncore_frequency", "--duration", "1", "-x", ","}));
    ASSERT_EQ(r.status, 0) << machine << ": " << r.err;
    EXPECT_NEAR(value_of(r.out, "uncore_frequency (uncore_cha)"), ghz, 1e-6) << machine << ": " << r.out;
    EXPECT_NE(r.out.find(",GHz"), std::string::npos) << r.out;
    r = test::run_tool("pmu-raw", m.args({"-M", "uncore_frequency", "--per-socket", "--duration", "1", "-x", ","}));
    ASSERT_EQ(r.status, 0) << machine << ": " << r.err;
    EXPECT_NEAR(value_of(r.out, "uncore_frequency (uncore_cha)"), ghz, 1e-6) << machine << ": " << r.out;
  }
}

// perf's llc_demand_data_read_miss_latency: 1e9 * (OCCUPANCY / INSERTS) / (CLOCKTICKS /
// (source_count(OCCUPANCY) * #num_packages)) * duration_time: the TOR occupancy per insert in CHA
// clocks, in ns. TOR events 0x36 / 0x35 with umask 0xc817fe01 (bits 15:0: 0x0136 / 0x0135).
TEST(RawPerfMetrics, LlcDemandDataReadMissLatencyOnSapphireRapidsAndIceLake) {
  for (auto [machine, clock] : {std::pair{"spr-2s", "0x0001"}, {"icx-2s", "0x0000"}}) {
    test::BundledRig m(machine);
    test::SimProcess sim(m.root);
    const auto [cha, kind] = boxes(m, "uncore_cha");
    ASSERT_GT(cha, 0u);
    auto r =
        test::run_tool("pmu-raw", m.args({"-M", "llc_demand_data_read_miss_latency", "--duration", "2", "-x", ","}));
    ASSERT_EQ(r.status, 0) << machine << ": " << r.err;
    const double ns = 1e9 * (sim_rate(kind, "0x0136") / sim_rate(kind, "0x0135")) / sim_rate(kind, clock);
    EXPECT_NEAR(value_of(r.out, "llc_demand_data_read_miss_latency (uncore_cha)"), ns, ns * 1e-9)
        << machine << ": " << r.out;
  }
}

// perf's io_bandwidth_read/write: IIO data requests of four parts x 4 bytes on Cascade Lake, CHA
// TOR inserts of IO reads (PCIRDCUR) and writes (ITOM, ITOMCACHENEAR) x 64 bytes from Ice Lake-SP
// on (hits and misses apart on Ice Lake-SP), MB/s.
TEST(RawPerfMetrics, IoBandwidthFromIioOnCascadeLakeAndFromChaLater) {
  struct Case {
    const char* machine;
    const char* unit;
    const char* metric;
    const char* code;
    double events_x_bytes;  // events of that code in the formula x bytes each
  };
  for (const Case& c : {Case{"clx-2s", "uncore_iio", "io_bandwidth_read", "0x0483", 4 * 4},
                        Case{"clx-2s", "uncore_iio", "io_bandwidth_write", "0x0183", 4 * 4},
                        Case{"icx-2s", "uncore_cha", "io_bandwidth_read", "0x0435", 2 * 64},
                        Case{"icx-2s", "uncore_cha", "io_bandwidth_write", "0x0435", 4 * 64},
                        Case{"spr-2s", "uncore_cha", "io_bandwidth_read", "0x0435", 1 * 64},
                        Case{"spr-2s", "uncore_cha", "io_bandwidth_write", "0x0435", 2 * 64}}) {
    test::BundledRig m(c.machine);
    // IIO events count by the simulator's invented shares of stacks and parts unless given a rate,
    // which every part then counts alike.
    const std::string iio_rate = std::string("intel_skx_iio:") + c.code + "=100000000";
    test::SimProcess sim(m.root, std::string(c.unit) == "uncore_iio" ? std::vector<std::string>{"--rate", iio_rate}
                                                                     : std::vector<std::string>{});
    const auto [n, kind] = boxes(m, c.unit);
    ASSERT_GT(n, 0u) << c.machine << " " << c.unit;
    auto r = test::run_tool("pmu-raw", m.args({"-M", c.metric, "--duration", "1", "-x", ","}));
    ASSERT_EQ(r.status, 0) << c.machine << ": " << r.err;
    const double rate = std::string(c.unit) == "uncore_iio" ? 1e8 : sim_rate(kind, c.code);
    const double mbs = n * rate * c.events_x_bytes / 1e6;
    EXPECT_NEAR(value_of(r.out, std::string(c.metric) + " (" + c.unit + ")"), mbs, mbs * 1e-9)
        << c.machine << ": " << r.out;
  }
}

// --list-metrics groups the metrics as perf list does: perf's MetricGroup (No_group for perf's
// uncore metrics, which have none) or pmukit's family, each group's heading once, sorted.
TEST(RawPerfMetrics, ListMetricsShowsPerfsMetricGroups) {
  test::BundledRig m("spr-2s");
  auto r = test::run_tool("pmu-raw", m.args({"--list-metrics"}));
  ASSERT_EQ(r.status, 0) << r.err;
  r.out.insert(0, "\n");  // each heading after a line end, the first too
  const auto no_group = r.out.find("\nNo_group:\n");
  ASSERT_NE(no_group, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nNo_group:\n", no_group + 1), std::string::npos) << r.out;
  const auto freq = r.out.find("\n  uncore_frequency ");
  ASSERT_NE(freq, std::string::npos) << r.out;
  EXPECT_GT(freq, no_group);
  EXPECT_NE(r.out.find("[GHz] on uncore_cha"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("UNC_CHA_CLOCKTICKS / (source_count(UNC_CHA_CLOCKTICKS) * #num_packages)"), std::string::npos);
  const auto imc = r.out.find("\nintel_imc:\n");  // pmukit's own metrics, under their family
  ASSERT_NE(imc, std::string::npos) << r.out;
  EXPECT_GT(imc, no_group) << "groups sorted: No_group before intel_imc";
  // Only the Sapphire Rapids formula runs here; with --all each generation's is listed, the name
  // once in --names-only.
  EXPECT_EQ(r.out.rfind("\n  uncore_frequency "), freq) << r.out;
  r = test::run_tool("pmu-raw", m.args({"--list-metrics", "--all"}));
  ASSERT_EQ(r.status, 0) << r.err;
  std::size_t shown = 0;
  for (auto at = r.out.find("\n  uncore_frequency "); at != std::string::npos;
       at = r.out.find("\n  uncore_frequency ", at + 1))
    ++shown;
  EXPECT_EQ(shown, 3u) << r.out;  // Skylake-SP/Cascade Lake, Ice Lake-SP, Sapphire Rapids on
  r = test::run_tool("pmu-raw", m.args({"--list-metrics", "--all", "--names-only"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\nuncore_frequency\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nuncore_frequency\n"), r.out.rfind("\nuncore_frequency\n")) << r.out;
}

// perf's NUMA locality, LLC-miss latency by target and IO metrics from the CHA TOR, end to end. The
// simulator counts an event by its code (bits 15:0), so every TOR insert of IA requests (0x35, umask
// low byte 0x01) counts alike: half the read misses are local, and each latency is the occupancy
// per insert over one CHA's clock, as for llc_demand_data_read_miss_latency.
TEST(RawPerfMetrics, NumaLatencyByTargetAndIoFromTheChaTor) {
  struct Case {
    const char* machine;
    const char* clock;  // UNC_CHA_CLOCKTICKS' code
  };
  for (const Case& c : {Case{"spr-2s", "0x0001"}, Case{"gnr-2s", "0x0001"}, Case{"icx-2s", "0x0000"}}) {
    test::BundledRig m(c.machine);
    test::SimProcess sim(m.root);
    const auto [cha, kind] = boxes(m, "uncore_cha");
    ASSERT_GT(cha, 0u) << c.machine;
    // A run for each group of at most 4 events (a CHA's counters), so that none is multiplexed.
    test::RunResult r{0, "", ""};
    for (const char* metrics :
         {"numa_reads_addressed_to_local_dram,numa_reads_addressed_to_remote_dram",
          "llc_demand_data_read_miss_latency_for_local_requests", "llc_demand_data_read_miss_to_dram_latency",
          "io_bandwidth_write_local,io_read_l3_miss"}) {
      auto run = test::run_tool("pmu-raw", m.args({"-M", metrics, "--duration", "1", "-x", ","}));
      ASSERT_EQ(run.status, 0) << c.machine << ": " << run.err;
      EXPECT_EQ(run.err.find("multiplexed"), std::string::npos) << run.err;
      r.out += run.out;
    }
    const double ia = sim_rate(kind, "0x0135");
    EXPECT_NEAR(value_of(r.out, "numa_reads_addressed_to_local_dram (uncore_cha)"), 2 * ia / (4 * ia) * 100, 1e-9);
    EXPECT_NEAR(value_of(r.out, "numa_reads_addressed_to_remote_dram (uncore_cha)"), 50, 1e-9);
    const double ns = 1e9 * (sim_rate(kind, "0x0136") / ia) / sim_rate(kind, c.clock);
    EXPECT_NEAR(value_of(r.out, "llc_demand_data_read_miss_latency_for_local_requests (uncore_cha)"), ns, ns * 1e-9);
    EXPECT_NEAR(value_of(r.out, "llc_demand_data_read_miss_to_dram_latency (uncore_cha)"), ns, ns * 1e-9);
    // IO: ItoM and ItoMCacheNear to local memory, 64 bytes each; the misses of all reads (the same code).
    const double io = sim_rate(kind, "0x0435");
    EXPECT_NEAR(value_of(r.out, "io_bandwidth_write_local (uncore_cha)"), cha * io * 2 * 64 / 1e6, 1e-6) << r.out;
    EXPECT_NEAR(value_of(r.out, "io_read_l3_miss (uncore_cha)"), 100, 1e-9) << r.out;
  }
}

// perf's PMem bandwidth (IMC RPQ/WPQ inserts, event 0xe3/0xe7) on the platforms perf has it for,
// IIO bandwidth over all parts of a stack (SPR to SRF) and io_msi (GNR/SRF).
TEST(RawPerfMetrics, PmemIioBandwidthAndMsi) {
  struct Case {
    const char* machine;
    const char* metric;
    const char* unit;
    const char* code;
    double bytes;  // per count (1: a rate of events)
  };
  for (const Case& c : {Case{"spr-2s", "pmem_memory_bandwidth_read", "uncore_imc", "0x00e3", 64},
                        Case{"icx-2s", "pmem_memory_bandwidth_write", "uncore_imc", "0x00e7", 64},
                        Case{"clx-2s", "pmem_memory_bandwidth_read", "uncore_imc", "0x00e3", 64},
                        Case{"spr-2s", "iio_bandwidth_read", "uncore_iio", "0x0483", 4},
                        Case{"gnr-2s", "iio_bandwidth_write", "uncore_iio", "0x0183", 4},
                        Case{"gnr-2s", "io_msi", "uncore_iio", "0x048e", 1}}) {
    test::BundledRig m(c.machine);
    const auto [n, kind] = boxes(m, c.unit);
    ASSERT_GT(n, 0u) << c.machine << " " << c.unit;
    // An IIO event given a rate counts that rate on every stack, whatever its ch_mask selects.
    const bool iio = std::string(c.unit) == "uncore_iio";
    test::SimProcess sim(m.root, iio ? std::vector<std::string>{"--rate", kind + ":" + c.code + "=100000000"}
                                     : std::vector<std::string>{});
    auto r = test::run_tool("pmu-raw", m.args({"-M", c.metric, "--duration", "1", "-x", ","}));
    ASSERT_EQ(r.status, 0) << c.machine << ": " << r.err;
    const double rate = iio ? 1e8 : sim_rate(kind, c.code);
    const double expected = n * rate * c.bytes / (c.bytes == 1 ? 1 : 1e6);
    EXPECT_NEAR(value_of(r.out, std::string(c.metric) + " (" + c.unit + ")"), expected, expected * 1e-9)
        << c.machine << ": " << r.out;
  }
}

// A perf metric pmukit does not count says why, on -M and in --list-metrics; a formula for other
// platforms (Sierra Forest's, PMem's) is refused with the platform.
TEST(RawPerfMetrics, PerfMetricsPmukitDoesNotCountSayWhy) {
  test::BundledRig spr("spr-2s");
  auto r = test::run_tool("pmu-raw", spr.args({"-M", "llc_data_read_mpi_demand_plus_prefetch", "--duration", "1"}));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("pmu-raw: error: -M 'llc_data_read_mpi_demand_plus_prefetch': perf's metric on "
                       "icx/spr/emr/gnr/srf"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("INST_RETIRED.ANY"), std::string::npos) << r.err;
  r = test::run_tool("pmu-raw", spr.args({"--list-metrics"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto not_counted = r.out.find("\nNot counted by pmukit (perf's metrics for spr):\n");
  ASSERT_NE(not_counted, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  llc_data_read_mpi_demand_plus_prefetch ", not_counted), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n  cpu_cstate_c0 ", not_counted), std::string::npos) << "counted on spr";
  EXPECT_NE(r.out.find("\n  cpu_cstate_c0 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n  io_lost_fwd "), std::string::npos) << "GNR's only";
  EXPECT_NE(r.out.find("\n  numa_reads_addressed_to_local_dram "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n  numa_reads_addressed_to_local_dram ", not_counted), std::string::npos) << r.out;
  test::BundledRig clx("clx-2s");
  r = test::run_tool("pmu-raw", clx.args({"-M", "llc_data_read_mpi_demand_plus_prefetch", "--duration", "1"}));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("which pmukit does not count"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("INST_RETIRED.ANY"), std::string::npos) << r.err;
  test::BundledRig gnr("gnr-2s");
  r = test::run_tool("pmu-raw", gnr.args({"-M", "pmem_memory_bandwidth_read", "--duration", "1"}));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("for other platforms than this one (gnr)"), std::string::npos) << r.err;
}

// perf's memory_extra_write_bw_due_to_directory_updates adds M2M counts to CHA counts: each summed
// over every box of its own PMU type, on the whole machine or (--per-socket) on one socket.
TEST(RawPerfMetrics, DirectoryUpdatesAddM2mToChaOnEachScope) {
  struct Case {
    const char* machine;
    const char* m2m_code;  // UNC_M2M_DIRECTORY_UPDATE.ANY's bits 15:0 (SPR: umask 0x301's low byte)
  };
  for (const Case& c : {Case{"spr-2s", "0x0121"}, Case{"icx-2s", "0x012e"}}) {
    test::BundledRig m(c.machine);
    test::SimProcess sim(m.root);
    const auto [cha, cha_kind] = boxes(m, "uncore_cha");
    const auto [m2m, m2m_kind] = boxes(m, "uncore_m2m");
    ASSERT_GT(cha, 0u) << c.machine;
    ASSERT_GT(m2m, 0u) << c.machine;
    const double updates =
        cha * (sim_rate(cha_kind, "0x0154") + sim_rate(cha_kind, "0x0254")) + m2m * sim_rate(m2m_kind, c.m2m_code);
    const std::string row = "memory_extra_write_bw_due_to_directory_updates (uncore_cha)";
    const std::string metric = "memory_extra_write_bw_due_to_directory_updates";
    auto r = test::run_tool("pmu-raw", m.args({"-M", metric, "--duration", "1", "-x", ","}));
    ASSERT_EQ(r.status, 0) << c.machine << ": " << r.err;
    EXPECT_EQ(r.err.find("multiplexed"), std::string::npos) << r.err;
    const double mbs = updates * 64 / 1e6;
    EXPECT_NEAR(value_of(r.out, row), mbs, mbs * 1e-9) << c.machine << ": " << r.out;
    // Both sockets have the same boxes: socket 0 (the first row) counts half of them.
    r = test::run_tool("pmu-raw", m.args({"-M", metric, "--per-socket", "--duration", "1", "-x", ","}));
    ASSERT_EQ(r.status, 0) << c.machine << ": " << r.err;
    EXPECT_NE(r.out.find("S0,"), std::string::npos) << r.out;
    EXPECT_NEAR(value_of(r.out, row), mbs / 2, mbs * 1e-9) << c.machine << ": " << r.out;
  }
  // Granite Rapids: perf has no such metric (and the machine no M2M PMU).
  test::BundledRig gnr("gnr-2s");
  auto r = test::run_tool("pmu-raw", gnr.args({"-M", "memory_extra_write_bw_due_to_directory_updates"}));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("other platforms than this one (gnr)"), std::string::npos) << r.err;
}

// perf's io_lost_fwd on Granite Rapids' IRPs: two IRP events summed over every IRP, per second.
TEST(RawPerfMetrics, IoLostForwardsOnGraniteRapidsIrps) {
  test::BundledRig m("gnr-2s");
  test::SimProcess sim(m.root);
  const auto [irp, kind] = boxes(m, "uncore_irp");
  ASSERT_GT(irp, 0u);
  auto r = test::run_tool("pmu-raw", m.args({"-M", "io_lost_fwd", "--duration", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  const double expected = irp * (sim_rate(kind, "0x101f") + sim_rate(kind, "0x201f"));
  EXPECT_NEAR(value_of(r.out, "io_lost_fwd (uncore_irp)"), expected, expected * 1e-9) << r.out;
}

// perf's cpu_cstate_c0/c6 on Sapphire Rapids' PCUs (one a socket): the cores in the state each PCU
// cycle, the sockets' occupancy over their clockticks times the sockets; Granite Rapids' formula
// (one PCU instance's clock) is not counted, and says why.
TEST(RawPerfMetrics, CoreCStatesFromSapphireRapidsPcus) {
  test::BundledRig m("spr-2s");
  test::SimProcess sim(m.root);
  std::string kind;
  for (const auto& u : m.found.inventory.units)
    if (u.name == "uncore_pcu") kind = u.pmu_kind;
  ASSERT_FALSE(kind.empty());
  auto r = test::run_tool("pmu-raw", m.args({"-M", "cpu_cstate_c0,cpu_cstate_c6", "--duration", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  const double clock = sim_rate(kind, "0x0001");
  // Two sockets: (2 x occupancy) / (2 x clock) x 2.
  const double c0 = 2 * sim_rate(kind, "0x0035") / clock, c6 = 2 * sim_rate(kind, "0x0037") / clock;
  EXPECT_NEAR(value_of(r.out, "cpu_cstate_c0 (uncore_pcu)"), c0, c0 * 1e-9) << r.out;
  EXPECT_NEAR(value_of(r.out, "cpu_cstate_c6 (uncore_pcu)"), c6, c6 * 1e-9) << r.out;
  test::BundledRig gnr("gnr-2s");
  r = test::run_tool("pmu-raw", gnr.args({"-M", "cpu_cstate_c0", "--duration", "1"}));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("pcu_0@UNC_P_CLOCKTICKS@"), std::string::npos) << r.err;
}

// perf's Skylake-SP/Cascade Lake CHA TOR metrics, end to end on clx-2s: TOR_INSERTS.IA_MISS (0x35,
// umask 0x21: code 0x2135) and TOR_OCCUPANCY.IA_MISS (0x2136) with perf's config1, which the CHA
// driver writes to the box filter (0 for these: see docs/metrics.md). The simulator counts an event
// by its code, so local and remote inserts count alike: 50% each; a latency is the occupancy per
// insert over one CHA's clock (UNC_CHA_CLOCKTICKS, 0x0000), in ns.
TEST(RawPerfMetrics, SkylakeChaFilterMetricsOnCascadeLake) {
  test::BundledRig m("clx-2s");
  test::SimProcess sim(m.root);
  const auto [cha, kind] = boxes(m, "uncore_cha");
  ASSERT_GT(cha, 0u);
  ASSERT_EQ(kind, "intel_skx_cha");
  test::RunResult r{0, "", ""};
  for (const char* metrics : {"numa_reads_addressed_to_local_dram,numa_reads_addressed_to_remote_dram",
                              "llc_data_read_demand_plus_prefetch_miss_latency",
                              "llc_data_read_demand_plus_prefetch_miss_latency_for_local_requests",
                              "llc_data_read_demand_plus_prefetch_miss_latency_for_remote_requests"}) {
    auto run = test::run_tool("pmu-raw", m.args({"-M", metrics, "--duration", "1", "-x", ","}));
    ASSERT_EQ(run.status, 0) << metrics << ": " << run.err;
    EXPECT_EQ(run.err.find("multiplexed"), std::string::npos) << run.err;
    r.out += run.out;
  }
  EXPECT_NEAR(value_of(r.out, "numa_reads_addressed_to_local_dram (uncore_cha)"), 50, 1e-9) << r.out;
  EXPECT_NEAR(value_of(r.out, "numa_reads_addressed_to_remote_dram (uncore_cha)"), 50, 1e-9) << r.out;
  const double ns = 1e9 * (sim_rate(kind, "0x2136") / sim_rate(kind, "0x2135")) / sim_rate(kind, "0x0000");
  for (const char* metric : {"llc_data_read_demand_plus_prefetch_miss_latency",
                             "llc_data_read_demand_plus_prefetch_miss_latency_for_local_requests",
                             "llc_data_read_demand_plus_prefetch_miss_latency_for_remote_requests"})
    EXPECT_NEAR(value_of(r.out, std::string(metric) + " (uncore_cha)"), ns, ns * 1e-9) << metric << ": " << r.out;
}
