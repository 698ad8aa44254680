// pmukit -- the uncore events perf knows on a CPU model, by perf's names, compiled in: the Intel
// perfmon event files as perf carries them (platforms/perfmon/<x>_uncore_events.json, made by
// scripts/perfmon-uncore-events.py; provenance in each file's "source" and docs/references.md).
#pragma once

#include <string_view>

#include "pmukit/events/perfmon_json.h"

namespace pmukit::events {

// The events of the file platforms/index.json names for `cpu_model` ("spr", as
// platform::CpuModel::name and discovery's Inventory::platform spell it), parsed on first use and
// kept for the program's life; nullptr when the model has none. Only that model's file is parsed.
const PerfmonEvents* builtin_uncore_events(std::string_view cpu_model);

}  // namespace pmukit::events
