// pmu-raw end to end on the bundled yitian machine's CMN-700 mesh, against a pmu-sim process: the
// Alibaba Yitian 710 CMN guide's perf stat line as written, an event over every node of a type,
// the guide's die-to-die formula, more events than the DTMs' counters (multiplexed), and every
// PMU register byte as it was afterwards.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/util/file.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

const std::vector<std::string> kGuideLine = {"-e", "arm_cmn_0/type=0x105,eventid=0x22,bynodeid=1,nodeid=413/",
                                             "-e", "arm_cmn_0/type=0x105,eventid=0x22,bynodeid=1,nodeid=421/",
                                             "-e", "arm_cmn_0/type=0x105,eventid=0x22,bynodeid=1,nodeid=429/",
                                             "-e", "arm_cmn_0/type=0x105,eventid=0x22,bynodeid=1,nodeid=437/",
                                             "-e", "arm_cmn_0/dtc_cycles/",
                                             "-a"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

unsigned nodes_of_type(const test::BundledRig& m, std::uint16_t type) {
  unsigned n = 0;
  for (const auto& u : m.found.inventory.units)
    if (const auto* c = u.as<discovery::CmnUnit>())
      for (const auto& node : c->nodes) n += node.type == type ? 1 : 0;
  return n;
}

}  // namespace

// The guide's counts per node, at those rates for one second: the DTM's 16-bit counters carry
// 12,362 times into the DTC counters they are paired with, and the sum comes out to the unit.
TEST(RawCmnEndToEnd, YitianGuidePerfStatLineCountsEachCclaAndRestores) {
  test::BundledRig m("yitian");
  test::SimProcess sim(m.root,
                       {"--rate", "arm_cmn:0x105:0x22@413=810164744", "--rate", "arm_cmn:0x105:0x22@421=810632046",
                        "--rate", "arm_cmn:0x105:0x22=811744534", "--rate", "arm_cmn:cycles=1800000000"});
  auto r =
      test::run_tool("pmu-raw", m.args(with(kGuideLine, {"-x", ",", "--", std::string(PMUKIT_TOOLS_DIR) + "/pmu-sim",
                                                         "advance", m.root.string(), "1000"})));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("810164744,,arm_cmn_0/type=0x105,eventid=0x22,bynodeid=1,nodeid=413/"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("810632046,,arm_cmn_0/type=0x105,eventid=0x22,bynodeid=1,nodeid=421/"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("811744534,,arm_cmn_0/type=0x105,eventid=0x22,bynodeid=1,nodeid=437/"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1800000000,,arm_cmn_0/dtc_cycles/"), std::string::npos) << r.out;
  EXPECT_EQ(m.image_change(), "");
}

// Without bynodeid an event counts over every node of its type (each in its own DTM counter, all
// feeding one DTC counter); a node id no CCLA has is the kernel's -EINVAL, said before any write.
TEST(RawCmnEndToEnd, EventOverEveryNodeOfItsTypeAndTheKernelsRefusal) {
  test::BundledRig m("yitian");
  const unsigned hnf = nodes_of_type(m, 0x5);
  ASSERT_GT(hnf, 1u);
  test::SimProcess sim(m.root, {"--rate", "arm_cmn:0x5:0x1=70000"});
  auto r = test::run_tool("pmu-raw", m.args({"-a", "-e", "arm_cmn_0/hnf_cache_miss/", "--duration", "2", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(fmt::format("{},,arm_cmn_0/hnf_cache_miss/", 140000ull * hnf)), std::string::npos) << r.out;
  auto bad = test::run_tool(
      "pmu-raw", m.args({"-a", "-e", "arm_cmn_0/type=0x105,eventid=0x21,bynodeid=1,nodeid=414/", "--duration", "1"}));
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("has no node of type 0x105 with node id 414"), std::string::npos) << bad.err;
  EXPECT_EQ(m.image_change(), "");
}

// The guide's formula on its four D2D CCLAs: 32 bytes x flits x 1.8 GHz / DTC cycles.
TEST(RawCmnEndToEnd, DieToDieBandwidthMetric) {
  test::BundledRig m("yitian");
  test::SimProcess sim(m.root, {"--rate", "arm_cmn:0x105:0x21=100000000", "--rate", "arm_cmn:cycles=1800000000"});
  auto r = test::run_tool("pmu-raw", m.args({"-a", "-M", "yitian_cmn_cross_die_rx_bw", "--duration", "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  // 32 x 4 x 1e8 x 1.8 / 1.8e9 = 12.8 GB/s, and each CCLA's quarter of it.
  EXPECT_NE(r.out.find("12.800 GB/s  yitian_cmn_cross_die_rx_bw (arm_cmn_0)\n"), std::string::npos) << r.out;
  for (int id : {413, 421, 429, 437})
    EXPECT_NE(r.out.find(fmt::format("3.200 GB/s  yitian_cmn_cross_die_rx_bw "
                                     "(arm_cmn_0/type=0x105,eventid=0x21,bynodeid=1,nodeid={})\n",
                                     id)),
              std::string::npos)
        << r.out;
  EXPECT_EQ(m.image_change(), "");
}

// Five events on the nodes of one DTM: four local counters, so they are counted in turn.
TEST(RawCmnEndToEnd, MoreEventsThanADtmHasCountersAreMultiplexed) {
  test::BundledRig m("yitian");
  test::SimProcess sim(m.root, {});  // 1,000,000 counts/s: rates.json's default
  std::vector<std::string> args = {"-a"};
  for (int id : {0x21, 0x22, 0x23, 0x24, 0x25})
    args.insert(args.end(), {"-e", fmt::format("arm_cmn_0/type=0x105,eventid={:#x},bynodeid=1,nodeid=413/", id)});
  args.insert(args.end(), {"--duration", "2", "--mux-interval", "100", "-x", ","});
  auto r = test::run_tool("pmu-raw", m.args(args));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(",arm_cmn_0/type=0x105,eventid=0x25,bynodeid=1,nodeid=413/,"), std::string::npos) << r.out;
  EXPECT_EQ(m.image_change(), "");
}

// The kernel's arm-cmn driver bound to the mesh (its PMU below the platform device and in
// event_source): the direct backend says in one line why it stays off, and auto takes perf (which,
// on a snapshot, says it counts only the live machine's PMUs -- the proof it was chosen).
TEST(RawCmnEndToEnd, KernelDriverLoadedMeansPerf) {
  test::BundledRig m("yitian");
  const auto pmu_dir = m.root / "sys/devices/platform/ARMHC700:00/arm_cmn_0";
  std::filesystem::create_directories(pmu_dir / "format");
  write_file(pmu_dir / "type", "100\n");
  write_file(pmu_dir / "cpumask", "0\n");
  write_file(pmu_dir / "format/type", "config:0-15\n");
  write_file(pmu_dir / "format/eventid", "config:16-26\n");
  std::filesystem::create_directories(m.root / "sys/bus/event_source/devices");
  std::filesystem::create_symlink("../../../devices/platform/ARMHC700:00/arm_cmn_0",
                                  m.root / "sys/bus/event_source/devices/arm_cmn_0");
  const std::vector<std::string> ev = {"-a", "-e", "arm_cmn_0/type=0x5,eventid=0x1/", "--duration", "1"};
  auto direct = test::run_tool("pmu-raw", m.args(with(ev, {"--backend", "direct"})));
  EXPECT_NE(direct.status, 0);
  EXPECT_NE(direct.err.find("CONFIG_IO_STRICT_DEVMEM"), std::string::npos) << direct.err;
  auto automatic = test::run_tool("pmu-raw", m.args(ev));
  EXPECT_NE(automatic.status, 0);
  EXPECT_NE(automatic.err.find("the perf backend counts this machine's kernel PMUs, not a snapshot's"),
            std::string::npos)
      << automatic.err;
}
