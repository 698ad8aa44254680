// pmu-raw -- --list-events: the named events of each PMU on this machine.
#pragma once

#include <string>
#include <vector>

#include "common/tool.h"

namespace pmukit::tools {

// With event files (--event-file), their events too: those whose PMU this machine has, by name,
// and how many others each file holds.
int list_events(const MachineArgs& machine_args, const std::vector<std::string>& event_files = {});

// --list-events --names-only, for shell completion: "PMU/" for every PMU name -e takes here
// (units, merged families, the kernel's perf PMUs), "PMU/EVENT/" for each of its named events, then
// the --event-file names whose PMU is here; one a line, sorted.
int list_event_names(const MachineArgs& machine_args, const std::vector<std::string>& event_files = {});

// --list-metrics [--all] [--names-only]: the metrics that apply to this machine's PMUs (all of them
// with `all`); with `names_only` (for shell completion) their names alone, one a line.
int list_metric_catalog(const MachineArgs& machine_args, bool all, bool names_only = false);

}  // namespace pmukit::tools
