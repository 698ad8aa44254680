// pmu-exporter end to end against pmu-sim: while it serves, the counters it programmed run; when
// SIGTERM or SIGINT ends it, every PMU register of the machine holds what it held before, byte for
// byte, and it exits 0.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

void serve_then_signal(const std::string& machine, const std::string& config, int sig) {
  test::BundledRig m(machine);
  test::SimProcess sim(m.root);
  const auto path = m.dir.path() / "exporter.json";
  std::ofstream(path) << config;
  test::ToolProcess exporter("pmu-exporter", m.args({"--config", path.string(), "--listen", "127.0.0.1:0"}));
  // The line comes once the counters are programmed and started, and the server listens.
  ASSERT_NE(exporter.read_line().find("pmu-exporter: listening on http://127.0.0.1:"), std::string::npos)
      << exporter.err();
  auto advance = test::run_tool("pmu-sim", {"advance", m.root.string(), "1500"});
  ASSERT_EQ(advance.status, 0) << advance.err;
  EXPECT_NE(m.image_change(), "") << "the exporter's counters are not counting";
  exporter.signal(sig);
  EXPECT_EQ(exporter.wait(), 0) << exporter.err();
  EXPECT_EQ(m.image_change(), "");
}

}  // namespace

TEST(ExporterEndToEnd, SigtermPutsEveryIntelRegisterBack) {
  serve_then_signal("spr-2s",
                    R"({"events": ["uncore_imc/cas_count_read/", "uncore_cha/clockticks/",
                                   "uncore_iio_1/event=0x83,umask=0x04,ch_mask=0x1,fc_mask=0x7/"],
                        "metrics": ["spr_dram_write_bw"]})",
                    SIGTERM);
}

TEST(ExporterEndToEnd, SigintPutsEveryCoreSightRegisterBack) {
  serve_then_signal("grace-2s",
                    R"({"events": ["nvidia_scf_pmu_0/cmem_rd_data/",
                                   "nvidia_pcie_pmu_0/rd_bytes_loc,root_port=0x100/"],
                        "granularity": "per-socket"})",
                    SIGINT);
}
