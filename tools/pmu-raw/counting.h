// pmu-raw -- the counting run: options, backend choice, the interval / duration / command loop.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/backend_choice.h"
#include "common/tool.h"
#include "report.h"

namespace pmukit::tools {

struct RawOptions {
  MachineArgs machine;
  std::vector<std::string> events;  // -e arguments (each may be a list)
  std::optional<std::uint64_t> interval_ms;
  std::optional<std::uint64_t> interval_count;
  std::uint64_t mux_interval_ms = kDefaultMuxIntervalMs;  // --mux-interval
  std::optional<double> duration_s;
  std::vector<std::string> command;  // after --
  std::string backend = "auto";
  bool force = false;
  ReportOptions report;
  std::string output;                      // -o FILE
  std::vector<std::string> metrics;        // -M NAME[/TERMS/]
  std::vector<std::string> metric_params;  // --metric-param NAME=VALUE
  std::vector<std::string> event_files;    // --event-file FILE (intel/perfmon JSON)
};

// Returns the exit status: 0, the command's status when it failed, or 1 when registers could not
// all be restored.
int run_counting(RawOptions& options);
// pmu-raw --recover: puts back the registers a killed run left programmed (pmu/journal.h), then exits.
// --recover: restores a killed run's registers from its journal; `take_over` (--recover --force):
// also when its writer cannot be proven gone.
int run_recover(const MachineArgs& machine, bool take_over);
// --discard-journal: sets a journal that cannot be recovered aside, its registers not restored.
int run_discard_journal(const MachineArgs& machine);
// --list-metrics [--all] [--names-only]
int list_metric_catalog(const MachineArgs& machine, bool all, bool names_only = false);

}  // namespace pmukit::tools
