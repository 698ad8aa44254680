// perf::CpuVisitor and EventSet::read's per-CPU reading: the thread goes to each CPU whose groups
// it reads (perf stat's affinity trick, which saves an IPI per read) and comes back to the
// affinity it had, also when it may not go there.
#include <gtest/gtest.h>
#include <sched.h>

#include "live_perf.h"
#include "pmukit/perf/cpu_affinity.h"
#include "pmukit/perf/event_set.h"

using namespace pmukit;
using namespace pmukit::perf;

namespace {

cpu_set_t affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}

// Pins the thread for the test's duration, then restores what it had.
class Pin {
 public:
  explicit Pin(const cpu_set_t& set) : saved_(affinity()) { EXPECT_EQ(::sched_setaffinity(0, sizeof set, &set), 0); }
  ~Pin() { ::sched_setaffinity(0, sizeof saved_, &saved_); }

 private:
  cpu_set_t saved_;
};

cpu_set_t only(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return set;
}

// Two CPUs this thread may run on, or none.
std::optional<std::pair<int, int>> two_allowed_cpus() {
  cpu_set_t set = affinity();
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.size() < 2) return std::nullopt;
  return std::pair(cpus[0], cpus[1]);
}

}  // namespace

TEST(CpuVisitor, MovesThereAndRestoresTheOriginalAffinity) {
  auto cpus = two_allowed_cpus();
  if (!cpus) GTEST_SKIP() << "needs two CPUs this thread may run on";
  cpu_set_t before = affinity();
  {
    CpuVisitor visitor;
    ASSERT_TRUE(visitor.move_to(cpus->second));
    EXPECT_EQ(CpuVisitor::current(), cpus->second);
    ASSERT_TRUE(visitor.move_to(cpus->first));
    EXPECT_EQ(CpuVisitor::current(), cpus->first);
    cpu_set_t now = affinity();
    EXPECT_EQ(CPU_COUNT(&now), 1);
  }
  cpu_set_t after = affinity();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(CpuVisitor, RefusesCpusOutsideTheThreadsAffinity) {
  auto cpus = two_allowed_cpus();
  if (!cpus) GTEST_SKIP() << "needs two CPUs this thread may run on";
  Pin pin(only(cpus->first));  // as under `taskset -c FIRST`
  {
    CpuVisitor visitor;
    EXPECT_FALSE(visitor.move_to(cpus->second));
    EXPECT_FALSE(visitor.move_to(-1));
    EXPECT_FALSE(visitor.move_to(CPU_SETSIZE));
  }
  cpu_set_t after = affinity(), want = only(cpus->first);
  EXPECT_TRUE(CPU_EQUAL(&after, &want));
}

// Counts this thread's migrations while `body` runs.
template <class F>
std::uint64_t migrations_during(F body) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_MIGRATIONS;
  EventFd fd(sys_perf_event_open(attr, 0, -1, -1));
  body();
  std::uint64_t n = 0;
  EXPECT_EQ(::read(fd.get(), &n, sizeof n), static_cast<ssize_t>(sizeof n));
  return n;
}

// msr/tsc and cpu-clock on the two CPUs, enabled: two groups per CPU.
std::unique_ptr<EventSet> counting_on(std::pair<int, int> cpus) {
  Machine live = Machine::live();
  CountOptions opts;
  opts.cpus = {cpus.first, cpus.second};
  auto set = std::make_unique<EventSet>(live, bind_events(live, syntax::parse_event_list("msr/tsc/,cpu-clock")), opts);
  set->enable();
  return set;
}

TEST(EventSet, ReadsEachCpusGroupsOnThatCpuAndComesBack) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  auto cpus = two_allowed_cpus();
  if (!cpus) GTEST_SKIP() << "needs two CPUs this thread may run on";
  auto set = counting_on(*cpus);
  cpu_set_t before = affinity();
  // Wherever the thread starts, one of the two CPUs is another one: reading its groups takes the
  // thread there.
  std::vector<EventCount> counts;
  std::uint64_t moved = migrations_during([&] { counts = set->read(); });
  cpu_set_t after = affinity();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  EXPECT_GE(moved, 1u);
  for (const auto& c : counts) {
    EXPECT_EQ(c.instances, 2u) << c.name;
    EXPECT_GT(c.raw, 0u) << c.name;
  }
}

TEST(EventSet, ReadsFromWhereItIsWhenPinnedElsewhere) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  auto cpus = two_allowed_cpus();
  if (!cpus) GTEST_SKIP() << "needs two CPUs this thread may run on";
  auto set = counting_on(*cpus);
  Pin pin(only(cpus->first));  // `taskset -c FIRST pmu-raw ...`: the second CPU is read remotely
  for (int round = 0; round < 2; ++round) {
    auto counts = set->read();
    for (const auto& c : counts) {
      EXPECT_EQ(c.instances, 2u) << c.name;
      EXPECT_GT(c.raw, 0u) << c.name;
    }
    cpu_set_t now = affinity(), want = only(cpus->first);
    EXPECT_TRUE(CPU_EQUAL(&now, &want));
  }
}
