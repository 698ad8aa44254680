// pmukit -- where each PMU instance counts, as perf places an uncore PMU: at the CPU its cpumask
// names (Linux's uncore drivers count a die's boxes from one CPU of that die, the first online
// one), that CPU's socket and die, and the NUMA node whose cpulist holds it (the machine root's
// /sys/devices/system/node/nodeN/cpulist). perf stat --per-die and --per-node sum an uncore PMU's
// instances by these, and perf stat -C counts only the instances whose CPU is in its list.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"

namespace pmukit::counting {

struct PmuPlace {
  int cpu = -1;  // the CPU the unit counts from; -1: not known (no online CPU on its socket)
  int socket = -1;
  int die = -1;   // that CPU's die (sysfs topology/die_id)
  int node = -1;  // -1: no NUMA node lists the CPU
};

// By socket, then kernel PMU name (uncore_imc_3) and every alias of a unit (pcie_bdf_200): one
// Intel PMU name covers a box on every socket, as Linux's uncore PMUs do (a cpumask of one CPU
// per die), so a row is placed by its socket and PMU.
using PmuPlaces = std::map<int, std::map<std::string, PmuPlace, std::less<>>>;

// The CPU the unit's kernel PMU counts it from where the unit names its own (AMD's amd_l3: one PMU
// name, a unit per CCX, each counted from its CCX's first CPU, as the PMU's cpumask lists them;
// its DF and UMCs from their socket's first CPU); -1 for the others, counted from their die's.
int own_cpu(const discovery::PmuUnit& unit);

// Where `unit` counts from: its own CPU where it names one, else the first CPU of its die, where the topology has that
// die on its socket, else the socket's first CPU (Intel's discovery tables number dies that Linux may not: GNR's
// compute and I/O dies), with that CPU's die and NUMA node.
PmuPlace place_of(const discovery::PmuUnit& unit, const discovery::Topology& topology);
// The place of every discovered unit.
PmuPlaces pmu_places(const discovery::Inventory& inventory, const discovery::Topology& topology);

// perf stat -C LIST on uncore PMUs: only the units whose CPU is in `cpus` are kept (an empty list
// keeps every unit). Throws UsageError when no unit is left, naming the CPUs the units count from.
void keep_units_on_cpus(discovery::Inventory& inventory, const discovery::Topology& topology,
                        const std::vector<int>& cpus);

}  // namespace pmukit::counting
