// pmu-discover -- which discovered units the kernel's perf also exposes (perf/unit_mapping.h), as
// text and in the inventory's JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "pmukit/perf/unit_mapping.h"

namespace pmukit::tools {

using PerfMapping = perf::UnitMapping;

void print_perf_mapping(const Machine& machine, const std::vector<PerfMapping>& map);
// Adds "perf_pmu": {"name", "type", "cpumask"} or null to every unit of an inventory JSON document.
void add_perf_mapping(nlohmann::ordered_json& doc, const std::vector<PerfMapping>& map);

}  // namespace pmukit::tools
