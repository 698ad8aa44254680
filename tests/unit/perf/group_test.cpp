// perf::Group and perf::EventSet counting for real on this machine: msr/tsc and software events,
// system-wide on a CPU and per task. Skipped only where perf_event_open is impossible.
#include <gtest/gtest.h>

#include <set>

#include "live_perf.h"
#include "pmukit/perf/group.h"
#include "pmukit/perf/sysfs_pmu.h"

using namespace pmukit;
using namespace pmukit::perf;

TEST(ScaleCount, MatchesPerf) {
  EXPECT_EQ(scale_count(1000, 100, 100), 1000u);
  EXPECT_EQ(scale_count(1000, 100, 50), 2000u);
  EXPECT_EQ(scale_count(1000, 300, 200), 1500u);
  EXPECT_EQ(scale_count(10, 3, 2), 15u);
  EXPECT_EQ(scale_count(1000, 100, 0), 0u);  // never ran: perf's <not counted>
  EXPECT_EQ(scale_count(7, 0, 0), 0u);
  GroupReading r{{100, 40}, 1000, 250};
  EXPECT_TRUE(r.counted());
  EXPECT_TRUE(r.multiplexed());
  EXPECT_DOUBLE_EQ(r.running_percent(), 25.0);
  EXPECT_EQ(r.scaled(0), 400u);
  EXPECT_EQ(r.scaled(1), 160u);
  GroupReading never{{0}, 0, 0};
  EXPECT_FALSE(never.counted());
  EXPECT_DOUBLE_EQ(never.running_percent(), 0.0);
}

TEST(Group, SystemWideMsrTscAndCpuClockOnCpu0) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  Group g(live, test::live_counters("msr/tsc/,software/config=0/"), Target::on_cpu(0));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.counters()[0].type, 9u);
  EXPECT_EQ(g.counters()[1].type, 1u);
  EXPECT_EQ(std::set<std::uint64_t>(g.ids().begin(), g.ids().end()).size(), 2u);

  GroupReading before = g.read();  // opened disabled: nothing counted yet
  EXPECT_EQ(before.values, (std::vector<std::uint64_t>{0, 0}));
  EXPECT_EQ(before.time_enabled, 0u);

  g.enable();
  test::spin_cpu_ns(20'000'000);
  g.disable();
  GroupReading r = g.read();
  ASSERT_EQ(r.values.size(), 2u);
  EXPECT_GT(r.time_enabled, 0u);
  EXPECT_GT(r.values[0], 0u) << "TSC ticks on CPU 0";
  EXPECT_GT(r.values[1], 0u) << "cpu-clock ns on CPU 0";
  // Neither PMU multiplexes (msr reads an MSR, the clock is a software event).
  EXPECT_EQ(r.time_running, r.time_enabled);
  EXPECT_FALSE(r.multiplexed());
  EXPECT_DOUBLE_EQ(r.running_percent(), 100.0);
  // System-wide cpu-clock counts the ns the event was enabled, the same span as time_enabled.
  // Both are sampled from the kernel's clock at the same enable and disable, so they differ only
  // by the few instructions between the two samples: 0.5% of >= 20 ms leaves 100 us of room.
  EXPECT_NEAR(static_cast<double>(r.values[1]), static_cast<double>(r.time_enabled),
              0.005 * static_cast<double>(r.time_enabled));

  // Stopped means stopped: a second read returns the same values.
  GroupReading again = g.read();
  EXPECT_EQ(again.values, r.values);
  EXPECT_EQ(again.time_enabled, r.time_enabled);

  g.reset();
  EXPECT_EQ(g.read().values, (std::vector<std::uint64_t>{0, 0}));
}

TEST(Group, CountsRiseWhileEnabled) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  Group g(live, test::live_counters("msr/tsc/,task-clock"), Target::task(0));
  g.enable();
  test::spin_cpu_ns(2'000'000);
  GroupReading a = g.read();
  test::spin_cpu_ns(2'000'000);
  GroupReading b = g.read();
  g.disable();
  for (std::size_t i = 0; i < 2; ++i) EXPECT_GT(b.values[i], a.values[i]) << i;
  EXPECT_GT(b.time_enabled, a.time_enabled);
  // task-clock counts this thread's CPU time, and the thread spun 2 ms between the reads.
  EXPECT_GE(b.values[1] - a.values[1], 2'000'000 * test::kSpinCoverage);
}

TEST(Group, ReadIntoReusesTheCallersStorage) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  Group g(live, test::live_counters("msr/tsc/,msr/tsc/,cpu-clock,task-clock"), Target::task(0));
  g.enable();
  GroupReading r;
  g.read_into(r);
  const std::uint64_t* storage = r.values.data();
  test::spin_cpu_ns(1'000'000);
  g.read_into(r);
  EXPECT_EQ(r.values.data(), storage);
  ASSERT_EQ(r.values.size(), 4u);
  // Two members with the same config in one group are enabled together and read together.
  EXPECT_NEAR(static_cast<double>(r.values[0]), static_cast<double>(r.values[1]),
              0.01 * static_cast<double>(r.values[0]));
}

TEST(Group, EightMembersComeBackFromOneRead) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  Group g(live,
          test::live_counters("msr/tsc/,cpu-clock,msr/tsc/,task-clock,msr/tsc/,cpu-clock,"
                              "msr/tsc/,task-clock"),
          Target::on_cpu(0));
  g.enable();
  test::spin_cpu_ns(1'000'000);
  g.disable();
  GroupReading r = g.read();
  ASSERT_EQ(r.values.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_GT(r.values[i], 0u) << g.counters()[i].name;
  EXPECT_EQ(std::set<std::uint64_t>(g.ids().begin(), g.ids().end()).size(), 8u);
}

TEST(Group, FailingMemberClosesEverythingAndNamesTheMember) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  std::size_t fds = test::open_fd_count();
  // msr config 1 is APERF, which this CPU does not have: EINVAL on the third member.
  auto counters = test::live_counters("msr/tsc/,cpu-clock,msr/event=0x1/");
  try {
    Group g(live, counters, Target::on_cpu(0));
    FAIL() << "msr/event=0x1/ opened";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("event 'msr/event=0x1/': PMU 'msr' rejected the configuration", 0), 0u) << msg;
  }
  EXPECT_EQ(test::open_fd_count(), fds);
}

TEST(Group, FailingLeaderLeaksNothing) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  std::size_t fds = test::open_fd_count();
  std::vector<Counter> counters = test::live_counters("msr/tsc/,cpu-clock");
  counters[0].type = 0x7ffffff0;  // no PMU has this type: ENOENT
  counters[0].pmu = "";
  EXPECT_THROW(Group(live, counters, Target::on_cpu(0)), Error);
  EXPECT_EQ(test::open_fd_count(), fds);
}

TEST(EventSet, SystemWideOnEveryOnlineCpuSumsLikePerf) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  auto bound = bind_events(live, syntax::parse_event_list("msr/tsc/,cpu-clock,task-clock"));
  EventSet set(live, bound, CountOptions{});
  std::size_t cpus = online_cpus(live).size();
  // Two PMUs (msr, software), each opened once per online CPU.
  EXPECT_EQ(set.groups().size(), 2 * cpus);
  set.enable();
  test::spin_cpu_ns(10'000'000);
  set.disable();
  auto counts = set.read();
  ASSERT_EQ(counts.size(), 3u);
  for (const auto& c : counts) {
    EXPECT_EQ(c.instances, cpus) << c.name;
    EXPECT_TRUE(c.counted) << c.name;
    EXPECT_DOUBLE_EQ(c.running_percent, 100.0) << c.name;
    EXPECT_EQ(c.scaled, c.raw) << c.name;
  }
  EXPECT_EQ(counts[0].pmu, "msr");
  EXPECT_EQ(counts[1].name, "cpu-clock");
  EXPECT_EQ(counts[1].unit, "msec");
  EXPECT_DOUBLE_EQ(counts[1].value, static_cast<double>(counts[1].raw) * 1e-6);
  // cpu-clock on every CPU sums to the summed enabled time of its groups (see the 0.5% above).
  EXPECT_NEAR(static_cast<double>(counts[1].raw), static_cast<double>(counts[1].time_enabled),
              0.005 * static_cast<double>(counts[1].time_enabled));
  // System-wide, task-clock counts each CPU context's enabled time, which spans the 10 ms spun.
  EXPECT_GE(counts[2].raw, 10'000'000 * test::kSpinCoverage);
}

TEST(EventSet, PerTaskCountsOneGroupPerPmu) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  auto bound = bind_events(live, syntax::parse_event_list("{msr/tsc/,task-clock},cpu-clock"));
  CountOptions opts;
  opts.pid = 0;
  EventSet set(live, bound, opts);
  ASSERT_EQ(set.groups().size(), 2u);
  EXPECT_EQ(set.groups()[0].size(), 2u);
  set.enable();
  test::spin_cpu_ns(3'000'000);
  set.disable();
  auto counts = set.read();
  for (const auto& c : counts) {
    EXPECT_EQ(c.instances, 1u);
    EXPECT_GT(c.raw, 0u) << c.name;
  }
  EXPECT_GE(counts[1].raw, 3'000'000 * test::kSpinCoverage);  // task-clock: the CPU time spun
}
