// pmu-discover -- which discovered units the kernel's perf also exposes (the unit's PMU name in
// events.path, or a name another kernel's driver gives it): the perf backend's alternative to direct access, and what
// pmu-raw --backend auto falls back to.
#pragma once

#include <nlohmann/json.hpp>

#include "pmukit/discovery/inventory.h"

namespace pmukit {
class Machine;
}

namespace pmukit::tools {

struct PerfMapping {
  std::string unit;  // the discovered unit's (kernel-compatible) name
  std::string perf;  // the kernel PMU's name: the unit's, or an alias another kernel gives it (pcie_bdf_200)
  bool present = false;
  std::uint32_t type = 0;
  std::vector<int> cpumask;
};

std::vector<PerfMapping> map_to_perf(const Machine& machine, const discovery::Inventory& inventory);
void print_perf_mapping(const Machine& machine, const std::vector<PerfMapping>& map);
// Adds "perf_pmu": {"name", "type", "cpumask"} or null to every unit of an inventory JSON document.
void add_perf_mapping(nlohmann::ordered_json& doc, const std::vector<PerfMapping>& map);

}  // namespace pmukit::tools
