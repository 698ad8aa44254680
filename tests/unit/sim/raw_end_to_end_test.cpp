// pmu-raw end to end against pmu-sim (both as real processes) on the bundled SPR machine:
// exact counts in virtual time, every output shape, command mode, refusals, and the register
// image byte for byte equal after a normal exit and after SIGINT.
#include <gtest/gtest.h>

#include <csignal>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/bundled_rig.h"
#include "support/output_lines.h"
#include "support/register_image.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// The bundled 2-socket Sapphire Rapids machine.
struct SprRig : test::BundledRig {
  SprRig() : BundledRig("spr-2s") {}
  std::vector<std::string> raw(std::vector<std::string> a) const { return args(std::move(a)); }
};

using test::lines;

}  // namespace

TEST(RawEndToEnd, IntervalCountsAreExactInVirtualTime) {
  SprRig rig;
  test::SimProcess sim(rig.root);
  auto r = test::run_tool(
      "pmu-raw", rig.raw({"-e", "uncore_imc/cas_count_read/", "-e", "uncore_imc_3/event=0x05,umask=0xcf,name=rd3/",
                          "-e", "duration_time", "-I", "1000", "--interval-count", "3", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 9u) << r.out;
  // 16 IMC boxes x 1e8 CAS/s x 64 bytes = 97656.25 MiB per second; rd3 counts box 3 of both sockets.
  // The running time of a merged line is its boxes' sum, as perf stat -a sums it over CPUs and PMUs.
  EXPECT_EQ(out[0], "1.000000000,97656.25,MiB,uncore_imc/cas_count_read/,16000000000,100.00,,");
  EXPECT_EQ(out[1], "1.000000000,200000000,,rd3,2000000000,100.00,,");
  EXPECT_EQ(out[2], "1.000000000,1000000000,ns,duration_time,1000000000,100.00,,");
  EXPECT_EQ(out[6].substr(0, 30), "3.000000000,97656.25,MiB,uncor");
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawEndToEnd, PerBoxAndPerSocketJson) {
  SprRig rig;
  test::SimProcess sim(rig.root, {"--rate", "intel_spr_imc:0xcf05=1000"});
  auto r =
      test::run_tool("pmu-raw", rig.raw({"-e", "uncore_imc/cas_count_read/", "--duration", "2", "--per-box", "-j"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 8u) << r.out;  // uncore_imc_0..7, each counting both sockets
  auto j = nlohmann::json::parse(out[3]);
  EXPECT_EQ(j["pmu"], "uncore_imc_3");
  EXPECT_EQ(j["event"], "uncore_imc_3/cas_count_read/");
  EXPECT_EQ(j["unit"], "MiB");
  // perf prints counter-value with %f: six decimals
  EXPECT_EQ(j["counter-value"], "0.244141");  // 2 sockets x 2 s x 1000 CAS x 64 B = 0.244140625 MiB
  EXPECT_EQ(j["backend"], "direct");
  auto s =
      test::run_tool("pmu-raw", rig.raw({"-e", "uncore_imc/cas_count_read/", "--duration", "1", "--per-socket", "-j"}));
  ASSERT_EQ(s.status, 0) << s.err;
  auto sockets = lines(s.out);
  ASSERT_EQ(sockets.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(sockets[1])["socket"], "S1");
  // perf stat --per-socket's "aggregate-number": the units the line sums, socket 1's 8 IMCs.
  EXPECT_EQ(nlohmann::json::parse(sockets[1])["aggregate-number"], 8);
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawEndToEnd, CountsOverACommandThatAdvancesVirtualTime) {
  SprRig rig;
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw",
                          rig.raw({"-e", "uncore_imc_0/cas_count_read/", "-x", ";", "--",
                                   std::string(PMUKIT_TOOLS_DIR) + "/pmu-sim", "advance", rig.root.string(), "1500"}));
  ASSERT_EQ(r.status, 0) << r.err;
  // 2 boxes (socket 0 and 1) x 1e8/s x 1.5 s = 3e8 CAS = 18310.546875 MiB
  EXPECT_NE(r.out.find("18310.55;MiB;uncore_imc_0/cas_count_read/"), std::string::npos) << r.out;
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawEndToEnd, SigintRestoresEveryRegister) {
  SprRig rig;
  test::SimProcess sim(rig.root);
  test::ToolProcess raw("pmu-raw", rig.raw({"-e", "uncore_imc/cas_count_read/", "-e", "uncore_m2m/event=0x2/", "-e",
                                            "uncore_cha/clockticks/", "-I", "100", "-x", ","}));
  std::string first = raw.read_line();
  ASSERT_NE(first.find("uncore_imc/cas_count_read/"), std::string::npos) << first << raw.err();
  raw.signal(SIGINT);
  EXPECT_EQ(raw.wait(), 128 + SIGINT) << raw.err();  // ended by the signal, as perf stat
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawEndToEnd, SigtermToo) {
  SprRig rig;
  test::SimProcess sim(rig.root);
  test::ToolProcess raw("pmu-raw",
                        rig.raw({"-e", "uncore_upi_1/event=0x1/", "-e", "uncore_iio_2/event=0x83/", "-I", "50"}));
  if (raw.read_line().empty()) FAIL() << "no output; exit " << raw.wait() << ": " << raw.err();
  raw.signal(SIGTERM);
  EXPECT_EQ(raw.wait(), 128 + SIGTERM) << raw.err();  // ended by the signal, as perf stat
  EXPECT_EQ(rig.image_change(), "");
}

// `pmu-raw -I 50 | head -1`: the reader goes away, the next write fails, and pmu-raw still puts
// every register back (without a SIGPIPE handler it died with the counters running).
TEST(RawEndToEnd, ClosedOutputPipeStillRestores) {
  SprRig rig;
  test::SimProcess sim(rig.root);
  test::ToolProcess raw(
      "pmu-raw", rig.raw({"-e", "uncore_imc/cas_count_read/", "-e", "uncore_cha_3/event=0x1/", "-I", "50", "-x", ","}));
  ASSERT_FALSE(raw.read_line().empty());
  raw.close_output();
  EXPECT_EQ(raw.wait(), 0) << raw.err();
  EXPECT_EQ(raw.err().find("error"), std::string::npos) << raw.err();
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawEndToEnd, RefusalsWriteNothing) {
  SprRig rig;
  test::SimProcess sim(rig.root);
  auto too_many =
      test::run_tool("pmu-raw", rig.raw({"-e",
                                         "{uncore_imc_0/event=1/,uncore_imc_0/event=2/,uncore_imc_0/event=3/,"
                                         "uncore_imc_0/event=4/,uncore_imc_0/event=5/}",
                                         "--duration", "1"}));
  EXPECT_EQ(too_many.status, 2);  // a group is counted whole: more events than counters are not multiplexed apart
  EXPECT_NE(too_many.err.find("the group {uncore_imc_0/event=1/,uncore_imc_0/event=2/,uncore_imc_0/event=3/,"
                              "uncore_imc_0/event=4/,uncore_imc_0/event=5/} does not fit the counters (uncore_imc_0: "
                              "5 events but the box has 4 counters and 1 fixed counter)"),
            std::string::npos)
      << too_many.err;
  auto unknown = test::run_tool("pmu-raw", rig.raw({"-e", "nvidia_scf_pmu_0/cmem_rd_data/", "--duration", "1"}));
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("no PMU 'nvidia_scf_pmu_0': neither pmukit nor the kernel's perf knows it"),
            std::string::npos)
      << unknown.err;
  auto misspelt = test::run_tool("pmu-raw", rig.raw({"-e", "uncore_imx/event=1/", "--duration", "1"}));
  EXPECT_EQ(misspelt.status, 2);
  EXPECT_NE(misspelt.err.find("no PMU 'uncore_imx' (did you mean 'uncore_imc'?): neither pmukit nor the kernel"),
            std::string::npos)
      << misspelt.err;
  auto term = test::run_tool("pmu-raw", rig.raw({"-e", "uncore_imc_0/nonsense=1/", "--duration", "1"}));
  EXPECT_EQ(term.status, 2);
  EXPECT_NE(term.err.find("unknown term 'nonsense' for pmu 'uncore_imc_0'"), std::string::npos) << term.err;
  {
    UnitLock held(*rig.machine, "uncore_imc_0");
    auto locked = test::run_tool("pmu-raw", rig.raw({"-e", "uncore_imc_0/cas_count_read/", "--duration", "1"}));
    EXPECT_EQ(locked.status, 1);
    EXPECT_NE(locked.err.find("pmu-raw: error: uncore_imc_0 is in use by test_sim (pid "), std::string::npos)
        << locked.err;
  }
  EXPECT_EQ(rig.image_change(), "");
}

TEST(RawEndToEnd, BusyUnitsNeedForce) {
  SprRig rig;
  {
    pmu::RegisterIo io(*rig.machine);
    io.write(pmu::msr(0, 0x2012), 0x400001);  // CHA 1 counter 0 programmed by someone else
  }
  rig.before = test::register_image(*rig.machine, rig.found.inventory);
  test::SimProcess sim(rig.root);
  auto busy = test::run_tool("pmu-raw", rig.raw({"-e", "uncore_cha_1/clockticks/", "--duration", "1"}));
  EXPECT_EQ(busy.status, 1);
  EXPECT_NE(busy.err.find("uncore_cha_1: in use: counter control MSR 0x2012 (CPU 0) is 0x400001"), std::string::npos)
      << busy.err;
  EXPECT_NE(busy.err.find("--force"), std::string::npos) << busy.err;
  auto direct =
      test::run_tool("pmu-raw", rig.raw({"-e", "uncore_cha_1/clockticks/", "--duration", "1", "--backend", "direct"}));
  EXPECT_EQ(direct.status, 1);
  EXPECT_NE(direct.err.find("uncore_cha_1: in use (counter control MSR 0x2012 (CPU 0) is 0x400001)"), std::string::npos)
      << direct.err;
  auto forced =
      test::run_tool("pmu-raw", rig.raw({"-e", "uncore_cha_1/clockticks/", "--duration", "1", "--force", "-x,"}));
  EXPECT_EQ(forced.status, 0) << forced.err;
  EXPECT_NE(forced.out.find("4000000000,,uncore_cha_1/clockticks/"), std::string::npos) << forced.out;
  EXPECT_EQ(rig.image_change(), "");
}
