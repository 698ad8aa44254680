// pmukit -- each PMU instance's CPU, socket, die and NUMA node, as perf places uncore PMUs.
#include "pmukit/counting/pmu_places.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "pmukit/families/amd/amd_unit.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit::counting {

int own_cpu(const discovery::PmuUnit& unit) {
  const auto* amd = unit.as<discovery::AmdUnit>();
  return amd ? amd->cpu : -1;
}

PmuPlace place_of(const discovery::PmuUnit& u, const discovery::Topology& topology) {
  PmuPlace p;
  p.socket = u.socket;
  if (u.socket < 0) return p;
  const int own = own_cpu(u);
  p.cpu = own >= 0 && topology.cpus.count(own) ? own : topology.first_cpu(u.socket, u.die);
  if (p.cpu < 0) p.cpu = topology.first_cpu(u.socket);
  if (p.cpu < 0) return p;
  p.die = topology.cpus.at(p.cpu).die;
  for (const auto& [node, cpus] : topology.node_cpus)
    if (std::find(cpus.begin(), cpus.end(), p.cpu) != cpus.end()) p.node = node;
  return p;
}

PmuPlaces pmu_places(const discovery::Inventory& inventory, const discovery::Topology& topology) {
  PmuPlaces places;
  for (const auto& u : inventory.units) {
    const PmuPlace p = place_of(u, topology);
    auto& on_socket = places[u.socket];
    on_socket.emplace(u.name, p);
    for (const auto& a : u.aliases) on_socket.emplace(a.name, p);
  }
  return places;
}

void keep_units_on_cpus(discovery::Inventory& inventory, const discovery::Topology& topology,
                        const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  std::set<int> counted_from;
  auto& units = inventory.units;
  const auto before = units.size();
  std::erase_if(units, [&](const discovery::PmuUnit& u) {
    const int cpu = place_of(u, topology).cpu;
    if (cpu >= 0) counted_from.insert(cpu);
    return std::find(cpus.begin(), cpus.end(), cpu) == cpus.end();
  });
  if (units.empty() && before > 0)
    throw UsageError(fmt::format("-C {}: no PMU unit here counts from these CPUs (uncore units count from CPU{} {})",
                                 format_cpu_list(cpus), counted_from.size() == 1 ? "" : "s",
                                 format_cpu_list({counted_from.begin(), counted_from.end()})));
}

}  // namespace pmukit::counting
