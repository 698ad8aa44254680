// pmukit -- counting events and metrics on a machine: the library's counting API.
//
//   pmukit::Machine machine(options);                 // a live machine, or a snapshot's root
//   pmukit::counting::Request request;
//   request.events = {"uncore_imc/cas_count_read/"};  // perf's event syntax
//   request.metrics = {"spr_dram_read_bw"};           // the vendor guides' formulas
//   pmukit::counting::Run run(machine, request);      // discover, bind, choose the backends
//   ... a ReadLoop (read_loop.h) counts it: start, read, evaluate the metrics, stop, restore.
//
// A Run holds what counting needs for its whole life: the units discovered, the events as parsed
// and bound, the metrics expanded to the events they read, the run's clock and its backend, whose
// direct part has taken the machine lock and saved every register it will write (nothing is
// written before the backend starts). Rows of counts name its strings by view: keep it in place.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/counting/backend.h"
#include "pmukit/counting/backend_choice.h"
#include "pmukit/counting/event_file.h"
#include "pmukit/counting/iio_breakdown.h"
#include "pmukit/counting/metric_runner.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/sim/clock.h"

namespace pmukit::counting {

struct Request {
  std::vector<std::string> events;              // perf syntax; each may be a comma list with {...} groups
  std::vector<std::string> metrics;             // NAME or NAME/TERMS/ (a comma list each, as perf's -M)
  std::vector<std::string> event_files;         // Intel perfmon JSON files: their event names work in events
  std::map<std::string, double> metric_params;  // a metric's parameters (CMN_FREQ_GHZ=2.0)
  BackendRequest backend;               // which backend counts each PMU; with per_socket, metrics per socket too
  IioScope iio_scope = IioScope::None;  // IIO metrics per PCIe device or per IIO stack
  // perf stat -C: only the units whose CPU (pmu_places.h) is one of these are counted, and the perf
  // backend opens its events on these CPUs only; empty: every unit.
  std::vector<int> cpus;
  // A metric named by its platform-neutral name (dram_read) that no PMU here counts is listed in
  // Run::absent_metrics instead of refused (pmu-exporter: one configuration for a fleet).
  bool neutral_metrics_optional = false;
  // The machine as a caller already discovered it (pmu-exporter, to bind its device labels): the
  // Run counts on these units and does not discover the machine a second time.
  std::optional<discovery::DiscoveryResult> discovered;
};

struct Run {
  // Parses the events, loads the event files, discovers the machine, expands the metrics and chooses
  // the backend (which, for the direct backend, takes the machine lock and saves every register it
  // owns; a journal a killed run left is recovered first, and `note` told so). Throws UsageError
  // for events or metrics that cannot be counted here, Error for a machine that cannot count them.
  Run(Machine& machine, const Request& request, const std::function<void(const std::string&)>& note = {});
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  discovery::DiscoveryResult found;  // the units the backends count on
  std::vector<syntax::EventSpec> specs;
  std::size_t asked_events = 0;                  // specs[0, asked_events) are the -e events; the rest only metrics need
  std::map<std::size_t, SpecScale> spec_scales;  // event-file events' scale and unit, by spec
  metrics::Catalog catalog;
  std::vector<MetricInstance> metrics;
  std::vector<AbsentMetric> absent_metrics;  // with Request::neutral_metrics_optional
  std::map<std::string, double> params;      // the metrics' parameters
  bool per_socket = false;                   // metrics evaluated per socket
  std::vector<std::string> warnings;         // the IIO stack mapping's, per device or per stack
  sim::MachineClock time;                    // the run's clock: real, or pmu-sim's
  std::unique_ptr<Backend> backend;
};

// perf's duration_time: counted by the read loop from its clock, not by a backend.
bool is_duration_time(const syntax::EventSpec& spec);

// Every PMU name events can be counted on here: discovered units and the kernel's perf PMUs, and
// the merged name of each numbered family ("uncore_imc" for uncore_imc_0..7), as perf merges them.
std::vector<std::string> pmu_names(const Machine& machine, const discovery::Inventory& inventory);

}  // namespace pmukit::counting
