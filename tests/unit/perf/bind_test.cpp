// bind_events and plan_groups on fake event_source trees: PMU expansion, software names,
// modifiers, and which events share a group.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include "pmu_tree.h"
#include "pmukit/access/machine.h"
#include "pmukit/perf/event_set.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "support/test_support.h"

using namespace pmukit;
using namespace pmukit::perf;

namespace {

class BindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* n : {"uncore_imc_0", "uncore_imc_1", "uncore_imc_2", "uncore_imc_3"})
      test::add_spr_imc(b, n, "24");
    test::add_msr_and_software(b);
    test::add_dwc_rootport(b);
  }
  std::vector<BoundEvent> bind(std::string_view text) {
    Machine m(MachineOptions{dir.path()});
    return bind_events(m, syntax::parse_event_list(text));
  }
  std::string bind_error(std::string_view text) {
    try {
      bind(text);
    } catch (const UsageError& e) {
      return e.what();
    }
    ADD_FAILURE() << text << " bound without a usage error";
    return "";
  }
  std::vector<std::vector<std::size_t>> plan(std::string_view text, Grouping g = Grouping::by_pmu) {
    return plan_groups(bind(text), g);
  }

  test::TempDir dir;
  snapshot::SnapshotBuilder b{dir.path()};
};

using Plan = std::vector<std::vector<std::size_t>>;

}  // namespace

TEST_F(BindTest, TypeNameExpandsToEveryBox) {
  auto bound = bind("uncore_imc/cas_count_read/");
  ASSERT_EQ(bound.size(), 4u);
  for (std::size_t i = 0; i < bound.size(); ++i) {
    EXPECT_EQ(bound[i].counter.pmu, "uncore_imc_" + std::to_string(i));
    EXPECT_EQ(bound[i].counter.type, 24u);
    EXPECT_EQ(bound[i].counter.config, 0x0304u);
    EXPECT_EQ(bound[i].counter.unit, "MiB");
    EXPECT_EQ(bound[i].cpumask, std::vector<int>{0});
    EXPECT_EQ(bound[i].spec, 0u);
    EXPECT_FALSE(bound[i].counter.has_excludes());
  }
}

TEST_F(BindTest, SoftwareNamesGetPerfsTypeConfigAndUnits) {
  auto bound = bind("cpu-clock,task-clock,cs,page-faults,software/config=1,name=tc/");
  ASSERT_EQ(bound.size(), 5u);
  EXPECT_EQ(bound[0].counter.type, 1u);
  EXPECT_EQ(bound[0].counter.config, 0u);
  EXPECT_EQ(bound[0].counter.unit, "msec");
  EXPECT_DOUBLE_EQ(bound[0].counter.scale, 1e-6);
  EXPECT_EQ(bound[1].counter.config, 1u);
  EXPECT_EQ(bound[2].counter.config, 3u);
  EXPECT_EQ(bound[3].counter.config, 2u);
  EXPECT_EQ(bound[4].counter.name, "tc");
  EXPECT_EQ(bound[4].counter.config, 1u);
  EXPECT_EQ(bound[4].counter.unit, "");
  for (const auto& e : bound) EXPECT_EQ(e.counter.pmu, "software");
}

TEST_F(BindTest, BareNameFindsAliasesInAnyPmu) {
  auto tsc = bind("tsc");
  ASSERT_EQ(tsc.size(), 1u);
  EXPECT_EQ(tsc[0].counter.pmu, "msr");
  EXPECT_EQ(tsc[0].counter.type, 9u);
  EXPECT_EQ(bind("clockticks").size(), 4u);
}

TEST_F(BindTest, ModifiersFollowPerf) {
  auto m = bind("msr/tsc/u,msr/tsc/k,msr/tsc/uk,cpu-clock:h,msr/tsc/I,msr/tsc/De");
  EXPECT_TRUE(!m[0].counter.exclude_user && m[0].counter.exclude_kernel && m[0].counter.exclude_hv);
  EXPECT_TRUE(m[1].counter.exclude_user && !m[1].counter.exclude_kernel && m[1].counter.exclude_hv);
  EXPECT_TRUE(!m[2].counter.exclude_user && !m[2].counter.exclude_kernel && m[2].counter.exclude_hv);
  EXPECT_TRUE(m[3].counter.exclude_user && m[3].counter.exclude_kernel && !m[3].counter.exclude_hv);
  EXPECT_TRUE(m[4].counter.exclude_idle && !m[4].counter.exclude_user);
  EXPECT_TRUE(m[5].counter.pinned && m[5].counter.exclusive && !m[5].counter.has_excludes());
}

// Grace guide (NVIDIA Grace Performance Tuning Guide): "perf stat -a -e cache-misses,cycles,instructions sleep 10" --
// perf's generic hardware events, counted by the CPU's own PMU.
TEST_F(BindTest, GenericHardwareEvents) {
  auto e = bind("cache-misses,cycles,instructions,ref-cycles:u");
  ASSERT_EQ(e.size(), 4u);
  for (const auto& ev : e) EXPECT_EQ(ev.counter.type, PERF_TYPE_HARDWARE) << ev.counter.name;
  EXPECT_EQ(e[0].counter.config, PERF_COUNT_HW_CACHE_MISSES);
  EXPECT_EQ(e[1].counter.config, PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_EQ(e[2].counter.config, PERF_COUNT_HW_INSTRUCTIONS);
  EXPECT_EQ(e[3].counter.config, PERF_COUNT_HW_REF_CPU_CYCLES);
  EXPECT_TRUE(e[3].counter.exclude_kernel && !e[3].counter.exclude_user);
  EXPECT_EQ(e[1].counter.pmu, "cpu");
  EXPECT_TRUE(e[1].cpumask.empty());  // every online CPU, as perf stat -a
}

TEST_F(BindTest, Errors) {
  std::string devices = (dir.path() / "sys/bus/event_source/devices").string();
  EXPECT_EQ(bind_error("uncore_cha_0/event=0x1/"),
            "event 'uncore_cha_0/event=0x1/': kernel has no PMU 'uncore_cha_0' (is its driver "
            "loaded? PMUs are listed in " +
                devices + ")");
  EXPECT_EQ(bind_error("duration_time"),
            "event 'duration_time': a perf tool event (perf keeps the wall time itself), not a "
            "kernel counter");
  EXPECT_EQ(bind_error("msr/tsc/p"),
            "event 'msr/tsc/p': modifier 'p' is not supported when counting (pmukit takes u k h I "
            "D e)");
  EXPECT_NE(bind_error("cycle").find("neither a generic hardware or software event nor an event of any PMU"),
            std::string::npos);
  EXPECT_NE(bind_error("cycle").find(devices + " (did you mean 'cycles'?) (write pmu/terms/"), std::string::npos);
  EXPECT_NE(bind_error("cas_count_raed").find("(did you mean 'cas_count_read'?)"), std::string::npos);
  EXPECT_NE(bind_error("sched:sched_switch").find("tracepoints are not counted"), std::string::npos);
  EXPECT_NE(bind_error("uncore_imc/cas_count_read,foo=1/").find("unknown term 'foo' for pmu 'uncore_imc'"),
            std::string::npos);
}

TEST_F(BindTest, UngroupedEventsShareAGroupPerPmu) {
  EXPECT_EQ(plan("uncore_imc_0/clockticks/,msr/tsc/,uncore_imc_0/cas_count_read/,cpu-clock,"
                 "task-clock,uncore_imc_1/clockticks/"),
            (Plan{{0, 2}, {1}, {3, 4}, {5}}));
}

TEST_F(BindTest, WrittenGroupsStaySeparateFromUngroupedEvents) {
  EXPECT_EQ(plan("msr/tsc/,{msr/tsc/,cpu-clock},{cpu-clock,uncore_imc_0/clockticks/},task-clock"),
            (Plan{{0}, {1, 2}, {3, 4}, {5}}));
}

TEST_F(BindTest, WrittenGroupOverManyBoxesSplitsPerBox) {
  // The software event joins the group of the first box only: counting it once.
  EXPECT_EQ(plan("{uncore_imc/clockticks/,uncore_imc/cas_count_read/,task-clock}"),
            (Plan{{0, 4, 8}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST_F(BindTest, WrittenGroupMixingPmusIsSplitByPmu) {
  EXPECT_EQ(plan("{msr/tsc/,uncore_imc_0/clockticks/,cpu-clock}"), (Plan{{0, 2}, {1}}));
}

TEST_F(BindTest, NoGroupingOpensEveryEventAlone) {
  EXPECT_EQ(plan("{msr/tsc/,cpu-clock},uncore_imc_0/clockticks/", Grouping::none), (Plan{{0}, {1}, {2}}));
}

TEST_F(BindTest, CpumaskWithoutAChosenCpuIsAUsageErrorBeforeAnyOpen) {
  MachineOptions o{dir.path()};
  o.live_perf = true;  // the snapshot's PMUs stand for this machine's (pmu-raw --live-perf)
  Machine m(o);
  auto bound = bind_events(m, syntax::parse_event_list("dwc_rootport_3018/tx_pcie_tlp_data_payload/"));
  CountOptions opts;
  opts.cpus = {0, 2};
  try {
    EventSet set(m, bound, opts);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "event 'dwc_rootport_3018/tx_pcie_tlp_data_payload/': PMU 'dwc_rootport_3018' "
                           "counts on CPU 1 (its cpumask), and none of them was chosen (0,2)");
  }
  EXPECT_THROW(EventSet(m, {}, CountOptions{}), UsageError);
}

TEST_F(BindTest, ASnapshotIsNotCountedWithThisMachinesPmusUnlessAsked) {
  Machine m(MachineOptions{dir.path()});
  auto bound = bind_events(m, syntax::parse_event_list("msr/tsc/"));
  try {
    EventSet set(m, bound, CountOptions{});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the perf backend counts this machine's kernel PMUs, not a snapshot's"),
              std::string::npos)
        << e.what();
  }
}
