// pmukit -- which discovered units the kernel's perf also exposes (the unit's PMU name in
// events.path, or a name another kernel's driver gives it): the perf backend's alternative to
// direct access, and what a counting run's automatic backend choice falls back to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"

namespace pmukit {
class Machine;
}

namespace pmukit::perf {

struct UnitMapping {
  std::string unit;  // the discovered unit's (kernel-compatible) name
  std::string perf;  // the kernel PMU's name: the unit's, or an alias another kernel gives it (pcie_bdf_200)
  bool present = false;
  std::uint32_t type = 0;
  std::vector<int> cpumask;
};

// One mapping per unit of `inventory`, in its order. A malformed kernel PMU directory counts as
// absent here (the perf backend reports it when it is used).
std::vector<UnitMapping> map_units(const Machine& machine, const discovery::Inventory& inventory);

}  // namespace pmukit::perf
