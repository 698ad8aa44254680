// counting::pmu_places and keep_units_on_cpus: where each PMU unit counts from (the first CPU of
// its die, that CPU's die and NUMA node), and perf stat -C's choice of units by that CPU.
#include <gtest/gtest.h>

#include "pmukit/counting/pmu_places.h"
#include "pmukit/util/error.h"

using namespace pmukit;

namespace {

// Two sockets of two dies, two CPUs each (socket 0: CPUs 0-3, socket 1: 4-7); NUMA node per die.
discovery::Topology topology() {
  discovery::Topology t;
  for (int cpu = 0; cpu < 8; ++cpu) {
    t.cpus[cpu] = {cpu / 4, (cpu / 2) % 2};
    t.node_cpus[cpu / 2].push_back(cpu);
  }
  return t;
}

discovery::Inventory inventory() {
  discovery::Inventory inv;
  for (int socket = 0; socket < 2; ++socket)
    for (int die = 0; die < 3; ++die) {  // die 2: a die the topology does not have (GNR's I/O die)
      discovery::PmuUnit u;
      u.name = "uncore_imc_" + std::to_string(die);
      u.socket = socket;
      u.die = die;
      inv.units.push_back(u);
    }
  return inv;
}

TEST(PmuPlaces, EachUnitCountsFromTheFirstCpuOfItsDie) {
  const auto places = counting::pmu_places(inventory(), topology());
  const auto& s1 = places.at(1);
  EXPECT_EQ(s1.at("uncore_imc_1").cpu, 6);
  EXPECT_EQ(s1.at("uncore_imc_1").die, 1);
  EXPECT_EQ(s1.at("uncore_imc_1").node, 3);
  // A die the topology does not list: the socket's first CPU, and its die and node.
  EXPECT_EQ(s1.at("uncore_imc_2").cpu, 4);
  EXPECT_EQ(s1.at("uncore_imc_2").die, 0);
  EXPECT_EQ(s1.at("uncore_imc_2").node, 2);
  EXPECT_EQ(places.at(0).at("uncore_imc_0").cpu, 0);
}

TEST(PmuPlaces, CpuListKeepsTheUnitsCountedFromItsCpus) {
  auto inv = inventory();
  counting::keep_units_on_cpus(inv, topology(), {2, 4});
  ASSERT_EQ(inv.units.size(), 3u);  // socket 0 die 1 (CPU 2); socket 1 dies 0 and 2 (CPU 4)
  EXPECT_EQ(inv.units[0].socket, 0);
  EXPECT_EQ(inv.units[0].die, 1);
  EXPECT_EQ(inv.units[1].socket, 1);
  inv = inventory();
  counting::keep_units_on_cpus(inv, topology(), {});
  EXPECT_EQ(inv.units.size(), 6u);  // no list: every unit
  try {
    counting::keep_units_on_cpus(inv, topology(), {1, 3});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "-C 1,3: no PMU unit here counts from these CPUs (uncore units count from CPUs 0,2,4,6)");
  }
}

}  // namespace
