// perf's Intel uncore metrics added for issue 35's point 1 (perf_intel_uncore.json): NUMA locality
// and LLC miss latencies by target, IO from the CHA TOR, PMem and IIO bandwidth, MSIs. Every value is
// worked out by hand from perf's MetricExpr (intel/perfmon 6dadedf <cpu>_metrics_perf.json); the
// choice of formula by PMU kind and by platform (Sierra Forest's IA_MISS_DRD_OPT) is checked too.
#include <cctype>

#include <gtest/gtest.h>

#include "metric_cases.h"
#include "pmukit/events/builtin_events.h"
#include "pmukit/util/text.h"

namespace pmukit::test {

namespace {

// TOR counts of LLC read misses by target, for numa_reads_addressed_to_{local,remote}_dram.
std::map<std::string, double> numa(const std::string& d, double local, double pref_local, double remote,
                                   double pref_remote) {
  const std::string p = "UNC_CHA_TOR_INSERTS_IA_MISS_" + d;
  return {{p + "_LOCAL", local},
          {p + "_PREF_LOCAL", pref_local},
          {p + "_REMOTE", remote},
          {p + "_PREF_REMOTE", pref_remote}};
}

// TOR occupancy and inserts of one request type, the CHA clock, the CHAs a socket and the sockets.
std::map<std::string, double> tor(const std::string& t, double occupancy, double inserts, double clockticks,
                                  double chas) {
  const std::string occ = "UNC_CHA_TOR_OCCUPANCY_IA_MISS_" + t;
  return {{occ, occupancy},
          {"UNC_CHA_TOR_INSERTS_IA_MISS_" + t, inserts},
          {"UNC_CHA_CLOCKTICKS", clockticks},
          {"source_count(" + occ + ")", chas},
          {"#num_packages", 2}};
}

const std::string kIo = "UNC_CHA_TOR_INSERTS_IO_";

}  // namespace

std::vector<MetricCase> perf_intel_more_cases() {
  return {
      // NUMA: the local (remote) share of LLC data read misses, demand and prefetch, as a percentage.
      {"numa_reads_addressed_to_local_dram",
       numa("DRD", 6e8, 2e8, 1.5e8, 5e7),
       1e9,
       80,
       "by hand: 8e8 local of 1e9 misses",
       {},
       "intel_icx_cha"},
      {"numa_reads_addressed_to_remote_dram",
       numa("DRD", 6e8, 2e8, 1.5e8, 5e7),
       1e9,
       20,
       "by hand: 2e8 remote of 1e9 misses",
       {},
       "intel_spr_cha"},
      {"numa_reads_addressed_to_local_dram",
       numa("DRD_OPT", 3e8, 1e8, 3e8, 3e8),
       1e9,
       40,
       "by hand: Sierra Forest's DRD_OPT requests, 4e8 local of 1e9",
       {},
       "intel_spr_cha",
       "srf"},
      {"numa_reads_addressed_to_remote_dram",
       numa("DRD_OPT", 3e8, 1e8, 3e8, 3e8),
       1e9,
       60,
       "by hand: 6e8 remote of 1e9",
       {},
       "intel_spr_cha",
       "srf"},
      // Directory updates: CHA (HA and TOR) and M2M updates added, 64 bytes each, as MB/s.
      {"memory_extra_write_bw_due_to_directory_updates",
       {{"UNC_CHA_DIR_UPDATE_HA", 1e8}, {"UNC_CHA_DIR_UPDATE_TOR", 2e8}, {"UNC_M2M_DIRECTORY_UPDATE_ANY", 5e7}},
       1e9,
       22400,
       "by hand: 3.5e8 updates of 64 bytes in 1 s",
       {},
       "intel_spr_cha",
       "spr"},
      {"memory_extra_write_bw_due_to_directory_updates",
       {{"UNC_CHA_DIR_UPDATE_HA", 3e7}, {"UNC_CHA_DIR_UPDATE_TOR", 1e7}, {"UNC_M2M_DIRECTORY_UPDATE_ANY", 1e7}},
       2e9,
       1600,
       "by hand: 5e7 updates of 64 bytes in 2 s",
       {},
       "intel_icx_cha",
       "icx"},
      // IRP: lost forwards and invalid secondary receives per second (Granite Rapids).
      {"io_lost_fwd",
       {{"UNC_I_MISC1_LOST_FWD", 3000}, {"UNC_I_MISC1_SEC_RCVD_INVLD", 1000}},
       5e8,
       8000,
       "by hand: 4000 in 0.5 s",
       {},
       "",
       "gnr"},
      // PCU: cores in C0 (C6) each PCU cycle, over both sockets' clockticks, times the sockets.
      {"cpu_cstate_c0",
       {{"UNC_P_POWER_STATE_OCCUPANCY_CORES_C0", 3.2e10}, {"UNC_P_CLOCKTICKS", 4e9}, {"#num_packages", 2}},
       1e9,
       16,
       "by hand: 8 cores in C0 a socket, 2 sockets",
       {},
       "",
       "spr"},
      {"cpu_cstate_c6",
       {{"UNC_P_POWER_STATE_OCCUPANCY_CORES_C6", 8e9}, {"UNC_P_CLOCKTICKS", 4e9}, {"#num_packages", 2}},
       1e9,
       4,
       "by hand: 2 cores in C6 a socket, 2 sockets",
       {},
       "",
       "emr"},
      // LLC miss latency: TOR occupancy per insert in cycles of one CHA's clock, as ns.
      {"llc_demand_data_read_miss_latency",
       tor("DRD_OPT", 9e10, 6e8, 2.88e11, 72),
       1e9,
       75,
       "by hand: 150 cycles a miss; 144 CHAs tick 2e9 in 1 s (2 GHz): 75 ns",
       {},
       "intel_spr_cha",
       "srf"},
      {"llc_demand_data_read_miss_latency_for_local_requests",
       tor("DRD_LOCAL", 4e10, 4e8, 1.6e11, 40),
       1e9,
       50,
       "by hand: 100 cycles at 2 GHz (80 CHAs, 1.6e11 ticks in 1 s)",
       {},
       "intel_icx_cha"},
      {"llc_demand_data_read_miss_latency_for_local_requests",
       tor("DRD_LOCAL", 6e10, 5e8, 2.4e11, 60),
       1e9,
       60,
       "by hand: 120 cycles at 2 GHz (120 CHAs, 2.4e11 ticks in 1 s)",
       {},
       "intel_spr_cha"},
      {"llc_demand_data_read_miss_latency_for_remote_requests",
       tor("DRD_REMOTE", 1e11, 5e8, 1.6e11, 40),
       1e9,
       100,
       "by hand: 200 cycles at 2 GHz",
       {},
       "intel_icx_cha"},
      {"llc_demand_data_read_miss_latency_for_remote_requests",
       tor("DRD_REMOTE", 2.2e11, 1e9, 2.4e11, 60),
       2e9,
       220,
       "by hand: 220 cycles; 120 CHAs tick 2.4e11 in 2 s (1 GHz): 220 ns",
       {},
       "intel_spr_cha"},
      {"llc_demand_data_read_miss_to_dram_latency",
       tor("DRD_DDR", 9e10, 1e9, 1.44e11, 40),
       1e9,
       50,
       "by hand: 90 cycles at 1.8 GHz",
       {},
       "intel_icx_cha"},
      {"llc_demand_data_read_miss_to_dram_latency",
       tor("DRD_DDR", 8.4e10, 7e8, 2.88e11, 60),
       1e9,
       50,
       "by hand: 120 cycles at 2.4 GHz",
       {},
       "intel_spr_cha"},
      {"llc_demand_data_read_miss_to_pmem_latency",
       tor("DRD_PMM", 3e11, 1e9, 1.6e11, 40),
       1e9,
       150,
       "by hand: 300 cycles at 2 GHz",
       {},
       "intel_icx_cha"},
      {"llc_demand_data_read_miss_to_pmem_latency",
       tor("DRD_PMM", 3.6e11, 1.2e9, 3e11, 60),
       1e9,
       120,
       "by hand: 300 cycles at 2.5 GHz (120 CHAs, 3e11 ticks in 1 s)",
       {},
       "intel_spr_cha",
       "spr"},
      // IO requests in the CHA TOR: LLC miss percentages, and 64-byte lines as MB/s.
      {"io_read_l3_miss",
       {{kIo + "MISS_PCIRDCUR", 2.5e7}, {kIo + "PCIRDCUR", 1e8}},
       1e9,
       25,
       "by hand: 2.5e7 of 1e8 reads miss"},
      {"io_partial_write_l3_miss",
       {{kIo + "MISS_ITOMCACHENEAR", 1.2e7}, {kIo + "MISS_RFO", 3e6}, {kIo + "ITOMCACHENEAR", 3e7}, {kIo + "RFO", 2e7}},
       1e9,
       30,
       "by hand: 1.5e7 of 5e7 partial writes miss"},
      {"io_full_write_l3_miss",
       {{kIo + "MISS_ITOM", 4e7}, {kIo + "ITOM", 5e7}},
       1e9,
       80,
       "by hand: 4e7 of 5e7 full-line writes miss"},
      {"io_bandwidth_read_local", {{kIo + "PCIRDCUR_LOCAL", 1e8}}, 1e9, 6400, "by hand: 1e8 x 64 B in 1 s"},
      {"io_bandwidth_read_remote", {{kIo + "PCIRDCUR_REMOTE", 5e7}}, 2e9, 1600, "by hand: 5e7 x 64 B in 2 s"},
      {"io_bandwidth_write_local",
       {{kIo + "ITOM_LOCAL", 3e7}, {kIo + "ITOMCACHENEAR_LOCAL", 1e7}},
       1e9,
       2560,
       "by hand: 4e7 x 64 B in 1 s"},
      {"io_bandwidth_write_remote",
       {{kIo + "ITOM_REMOTE", 1e7}, {kIo + "ITOMCACHENEAR_REMOTE", 5e6}},
       1e9,
       960,
       "by hand: 1.5e7 x 64 B in 1 s"},
      {"io_bandwidth_read_l3_miss", {{kIo + "MISS_PCIRDCUR", 2.5e7}}, 1e9, 1600, "by hand: 2.5e7 x 64 B in 1 s"},
      {"io_bandwidth_write_l3_miss",
       {{kIo + "MISS_ITOM", 2e7}, {kIo + "MISS_ITOMCACHENEAR", 5e6}},
       5e8,
       3200,
       "by hand: 2.5e7 x 64 B in 0.5 s"},
      // PMem: RPQ/WPQ inserts of the IMC, 64 bytes each.
      {"pmem_memory_bandwidth_read", {{"UNC_M_PMM_RPQ_INSERTS", 1e8}}, 1e9, 6400, "by hand: 1e8 x 64 B in 1 s"},
      {"pmem_memory_bandwidth_write", {{"UNC_M_PMM_WPQ_INSERTS", 5e7}}, 1e9, 3200, "by hand: 5e7 x 64 B in 1 s"},
      {"pmem_memory_bandwidth_total",
       {{"UNC_M_PMM_RPQ_INSERTS", 1e8}, {"UNC_M_PMM_WPQ_INSERTS", 5e7}},
       1e9,
       9600,
       "by hand: 1.5e8 x 64 B in 1 s"},
      // IIO: data requests of every part of a stack, in 4-byte units.
      {"iio_bandwidth_read",
       {{"UNC_IIO_DATA_REQ_OF_CPU_MEM_READ_ALL_PARTS", 2.5e9}},
       1e9,
       10000,
       "by hand: 2.5e9 x 4 B in 1 s"},
      {"iio_bandwidth_write",
       {{"UNC_IIO_DATA_REQ_OF_CPU_MEM_WRITE_ALL_PARTS", 1e9}},
       2e9,
       2000,
       "by hand: 1e9 x 4 B in 2 s"},
      {"io_msi", {{"UNC_IIO_NUM_REQ_OF_CPU_BY_TGT_UBOX_POSTED", 5e5}}, 5e8, 1e6, "by hand: 5e5 interrupts in 0.5 s"},
  };
}

}  // namespace pmukit::test

using pmukit::test::catalog;

// Sierra Forest shares Sapphire Rapids' CHA kind but counts other TOR requests: its variants are
// the platform's, and the Sapphire Rapids ones are not for it.
TEST(PerfIntelMore, SierraForestHasItsOwnFormulaOnTheSameChaKind) {
  for (const char* name : {"llc_demand_data_read_miss_latency", "numa_reads_addressed_to_local_dram"}) {
    const pmukit::metrics::Metric* spr = nullptr;
    const pmukit::metrics::Metric* srf = nullptr;
    for (const auto* v : catalog().variants(name))
      for (const auto& k : v->spec().pmu_kinds)
        if (k == "intel_spr_cha") (v->for_platform("srf") ? srf : spr) = v;
    ASSERT_NE(spr, nullptr) << name;
    ASSERT_NE(srf, nullptr) << name;
    EXPECT_TRUE(spr->for_platform("spr") && spr->for_platform("emr") && spr->for_platform("gnr")) << name;
    EXPECT_FALSE(srf->for_platform("spr")) << name;
    EXPECT_FALSE(spr->for_platform("srf")) << name;
    // IA_MISS_DRD_OPT: umask 0xc827fe01 (and _LOCAL 0xc826fe01) where Sapphire Rapids has 0xc817fe01 (0xc816fe01).
    const auto counts = [](const pmukit::metrics::Metric* v, const char* umask) {
      for (const auto& b : v->events())
        for (const auto& e : b.events)
          if (e.find(umask) != std::string::npos) return true;
      return false;
    };
    EXPECT_TRUE(counts(srf, "umask=0xc82") && !counts(srf, "umask=0xc81")) << name;
    EXPECT_TRUE(counts(spr, "umask=0xc81") && !counts(spr, "umask=0xc82")) << name;
  }
}

// perf's metrics pmukit does not count are listed with where perf has them and why.
TEST(PerfIntelMore, UnavailableMetricsSayWhy) {
  const auto* mpi = catalog().find_unavailable("llc_data_read_mpi_demand_plus_prefetch", "spr");
  ASSERT_NE(mpi, nullptr);
  EXPECT_NE(mpi->reason.find("INST_RETIRED.ANY"), std::string::npos) << mpi->reason;
  EXPECT_EQ(catalog().find_unavailable("numa_reads_addressed_to_local_dram", "skx"), nullptr);  // the CHA filter
  EXPECT_EQ(catalog().find_unavailable("numa_reads_addressed_to_local_dram", "spr"), nullptr);  // counted there
  for (const auto& u : catalog().unavailable()) EXPECT_FALSE(u.reason.empty()) << u.name;
}

namespace {

// "event=0x35,umask=0xc816fe01" -> {event: 0x35, umask: 0xc816fe01}; an IIO umask's extension
// (GNR/SRF write PortMask and FCMask into it too) left out.
std::map<std::string, std::uint64_t> term_values(const std::string& terms, bool iio) {
  std::map<std::string, std::uint64_t> out;
  for (auto t : pmukit::split(terms, ',')) {
    auto eq = t.find('=');
    out[std::string(t.substr(0, eq))] = std::stoull(std::string(t.substr(eq + 1)), nullptr, 0);
  }
  if (iio && out.count("umask")) out["umask"] &= 0xff;
  return out;
}

// perf's event of a formula variable: UNC_CHA_TOR_INSERTS_IA_MISS_DRD_LOCAL is UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL;
// UNC_CHA_TOR_INSERTS_IA_MISS_CONFIG1_40432 is UNC_CHA_TOR_INSERTS.IA_MISS with config1=0x40432.
const pmukit::events::PerfmonEvent* perf_event(const pmukit::events::PerfmonEvents& file, std::string variable) {
  if (auto at = variable.find("_CONFIG1_"); at != std::string::npos) variable.resize(at);
  for (const auto& e : file.events()) {
    std::string n = e.name;
    for (char& ch : n) ch = ch == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (n == variable) return &e;
  }
  return nullptr;
}

}  // namespace

// Every raw event of perf's formulas is the event of perf's name on each platform the formula runs
// on (platforms/perfmon/<model>_uncore_events.json, the same perfmon commit): the name exists there
// and its EventCode/UMask/PortMask/FCMask are the terms.
TEST(PerfIntelMore, EveryEventOfAFormulaIsPerfsOnEachPlatformItRunsOn) {
  struct Model {
    const char* name;
    std::map<std::string, std::string> kinds;  // of uncore_cha, uncore_imc, uncore_iio (and uncore_irp)
  };
  const std::vector<Model> models = {
      {"skx", {{"uncore_cha", "intel_skx_cha"}, {"uncore_imc", "intel_skx_imc"}, {"uncore_iio", "intel_skx_iio"}}},
      {"icx", {{"uncore_cha", "intel_icx_cha"}, {"uncore_imc", "intel_icx_imc"}, {"uncore_iio", "intel_snr_iio"}}},
      {"spr", {{"uncore_cha", "intel_spr_cha"}, {"uncore_imc", "intel_spr_imc"}, {"uncore_iio", "intel_snr_iio"}}},
      {"emr", {{"uncore_cha", "intel_spr_cha"}, {"uncore_imc", "intel_spr_imc"}, {"uncore_iio", "intel_snr_iio"}}},
      {"gnr",
       {{"uncore_cha", "intel_spr_cha"},
        {"uncore_imc", "intel_gnr_imc"},
        {"uncore_iio", "intel_snr_iio"},
        {"uncore_irp", "intel_spr_raw"}}},
      {"srf", {{"uncore_cha", "intel_spr_cha"}, {"uncore_imc", "intel_gnr_imc"}, {"uncore_iio", "intel_snr_iio"}}}};
  std::size_t checked = 0;
  for (const auto& m : catalog().metrics()) {
    if (m.spec().family != "perf_intel_uncore" || m.pmu() == "uncore_upi") continue;
    for (const auto& model : models) {
      const auto& kinds = m.spec().pmu_kinds;
      const auto of = model.kinds.find(m.pmu());
      const std::string kind = of == model.kinds.end() ? "" : of->second;
      if (!m.for_platform(model.name) || (!kinds.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()))
        continue;
      const auto* file = pmukit::events::builtin_uncore_events(model.name);
      ASSERT_NE(file, nullptr) << model.name;
      for (const auto& b : m.events())
        for (const auto& ev : b.events) {
          if (b.variable.rfind("UNC_", 0) != 0 || ev.find('=') == std::string::npos) continue;
          const auto* e = perf_event(*file, b.variable);
          ASSERT_NE(e, nullptr) << m.name() << " on " << model.name << ": perf has no " << b.variable;
          EXPECT_EQ(e->pmu_type, b.pmu.empty() ? m.pmu() : b.pmu) << m.name() << " " << b.variable;
          const bool iio = m.pmu() == "uncore_iio";
          auto terms = term_values(ev, iio);
          if (auto at = b.variable.find("_CONFIG1_"); at != std::string::npos) {  // perf's config1, named
            EXPECT_EQ(terms["config1"], std::stoull(b.variable.substr(at + 9), nullptr, 16)) << b.variable;
            terms.erase("config1");
          }
          EXPECT_EQ(terms, term_values(e->terms, iio))
              << m.name() << " on " << model.name << ": " << b.variable << " " << ev << " vs perf's " << e->terms;
          ++checked;
        }
    }
  }
  EXPECT_GT(checked, 200u);
}

// A formula over two PMU types: the M2M variable is bound to uncore_m2m, the CHA ones to the
// metric's PMU; the M2M event codes are each generation's (ICX 0x2e/0x01, SPR/EMR 0x21/0x301).
TEST(PerfIntelMore, DirectoryUpdatesAddM2mCountsToChaCounts) {
  const auto variants = catalog().variants("memory_extra_write_bw_due_to_directory_updates");
  ASSERT_EQ(variants.size(), 2u);
  for (const auto* v : variants) {
    EXPECT_EQ(v->pmu(), "uncore_cha");
    EXPECT_EQ(v->other_pmus(), std::vector<std::string>{"uncore_m2m"});
    for (const auto& b : v->events())
      EXPECT_EQ(b.pmu, b.variable.rfind("UNC_M2M_", 0) == 0 ? "uncore_m2m" : "") << b.variable;
    EXPECT_FALSE(v->for_platform("gnr"));
    EXPECT_FALSE(v->for_platform("srf"));
  }
  EXPECT_TRUE(variants[0]->for_platform("icx"));
  EXPECT_TRUE(variants[1]->for_platform("spr") && variants[1]->for_platform("emr"));
  EXPECT_EQ(catalog().find_unavailable("memory_extra_write_bw_due_to_directory_updates"), nullptr);
  EXPECT_EQ(catalog().find_unavailable("io_lost_fwd"), nullptr);
}
