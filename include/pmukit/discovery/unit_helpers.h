// pmukit -- small helpers the families' discoverers share.
#pragma once

#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"
#include "pmukit/platform/database.h"

namespace pmukit::discovery {

// The filter terms of a PMU kind: every format except the event selector(s).
inline std::vector<FilterField> filters_of(const platform::PmuKind* kind) {
  std::vector<FilterField> out;
  if (!kind) return out;
  for (const auto& [name, format] : kind->formats) {
    if (name == "event" || name == "eventid" || name == "type") continue;
    auto help = kind->format_help.find(name);
    out.push_back({name, format, help == kind->format_help.end() ? "" : help->second});
  }
  return out;
}

// The NUMA node holding `cpu`, -1 when none does.
inline int node_of_cpu(const Topology& topo, int cpu) {
  for (const auto& [node, cpus] : topo.node_cpus)
    for (int c : cpus)
      if (c == cpu) return node;
  return -1;
}

}  // namespace pmukit::discovery
