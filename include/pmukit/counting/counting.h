// pmukit tools -- setting up a counting run, shared by pmu-raw and pmu-exporter: the events and
// metrics as written, the units discovered, the clock and the backend, before any register is
// written.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/backend.h"
#include "common/backend_choice.h"
#include "common/event_file.h"
#include "common/iio_breakdown.h"
#include "common/metric_runner.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/sim/clock.h"

namespace pmukit::tools {

struct CountingRequest {
  std::vector<std::string> events;       // -e arguments (each may be a list)
  std::vector<std::string> metrics;      // -M NAME[/TERMS/]
  std::vector<std::string> event_files;  // --event-file FILE (intel/perfmon JSON)
  BackendRequest backend;
  IioScope iio_scope = IioScope::None;  // --per-device, --per-stack: -M per PCIe device or IIO stack
};

// Everything a counting run needs. Rows name its strings by view: it stays where it is for the
// whole run.
struct CountingSetup {
  discovery::DiscoveryResult found;  // the units the backends count on
  std::vector<syntax::EventSpec> specs;
  std::map<std::size_t, SpecScale> spec_scales;  // --event-file events' scale and unit, by spec
  metrics::Catalog catalog;
  std::vector<MetricInstance> metrics;
  std::vector<std::string> warnings;  // the IIO stack mapping's, with --per-device and --per-stack
  sim::MachineClock time;
  std::unique_ptr<Backend> backend;
};

// Parses the events, loads the event files, discovers the machine, expands the metrics and chooses
// the backend (which, for the direct backend, takes the machine lock and saves every register it
// owns). Throws UsageError for events or metrics that cannot be counted here.
void set_up_counting(Machine& machine, const CountingRequest& request, CountingSetup& setup);

// perf's duration_time: counted by the run loop from its clock, not by a backend.
bool is_duration_time(const syntax::EventSpec& spec);

// Every PMU name events can be counted on here: discovered units and the kernel's perf PMUs, and
// the merged name of each numbered family ("uncore_imc" for uncore_imc_0..7), as perf merges them.
std::vector<std::string> pmu_names(const Machine& machine, const discovery::Inventory& inventory);

// --metric-param NAME=VALUE arguments; UsageError for anything else.
std::map<std::string, double> parse_metric_params(const std::vector<std::string>& args);

}  // namespace pmukit::tools
