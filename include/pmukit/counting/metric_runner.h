// pmukit -- metrics (-M): the events a metric needs on each PMU it applies to, and its value per
// interval and at the end, from the formulas in platforms/metrics.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pmukit/counting/backend.h"
#include "pmukit/counting/event_names.h"
#include "pmukit/metrics/catalog.h"
#include "pmukit/syntax/event_spec.h"

namespace pmukit::counting {

// One metric's value over a window: per socket ("S0"), per box (a PMU name) or merged ("").
struct MetricRow {
  std::string group;  // "" merged, "S0", or a PMU name
  std::string name;   // "spr_dram_read_bw (uncore_imc)"
  const metrics::Metric* metric = nullptr;
  std::string pmu;  // the PMU it is computed on: "uncore_imc", "nvidia_scf_pmu_0"
  int socket = -1;  // per socket; -1 merged
  double value = 0;
  std::string unit;
  bool valid = true;
  std::string detail;  // --per-device: lspci's name of the device; --per-stack: the stack
  std::string reason;  // why it was not counted (an unmapped device); empty when counted
};

struct MetricInstance {
  const metrics::Metric* metric = nullptr;
  std::string pmu;                                        // "nvidia_scf_pmu_0"
  std::map<std::string, std::vector<std::size_t>> specs;  // variable -> the -e specs it sums
  // --per-device and --per-stack: the instance is one row of its own, under this group (a BDF or
  // an IIO PMU), whatever the aggregation; `reason` set means nothing is counted for it.
  std::string group;
  int socket = -1;    // with a group: the socket whose units it sums (a stack PMU has a unit per socket)
  std::string label;  // what the name shows after the metric: "uncore_iio_2 part 0"
  std::string stack;  // per IIO stack: the stack's name ("PCIe0"), pmu-exporter's stack label
  std::string detail;
  std::string reason;
};

// The events of `metric` on `pmu` with `extra` terms on each ("ch_mask=0x1"), appended to `specs`
// unless an identical spec is there already; returns the instance that sums them.
MetricInstance bind_metric(const metrics::Metric& metric, const std::string& pmu, const std::string& extra,
                           std::vector<syntax::EventSpec>& specs);

// The -M arguments as single metrics: "a,b/t=1,u=2/" is "a" and "b/t=1,u=2/" (a comma inside
// NAME/TERMS/ belongs to the terms, as in perf's -e).
std::vector<std::string> split_metric_list(const std::vector<std::string>& args);

// Expands each -M argument, "NAME" or "NAME/TERMS/" (TERMS are added to every event, e.g. the
// root_port filter Grace PCIe metrics require), on every PMU of `pmus` the metric applies to, and
// appends the events it needs to `specs` (reusing identical ones). A NAME that is no metric's may be
// a platform-neutral export name (export_as, "dram_read"): every metric exported under it is
// expanded on the PMUs here it applies to. A PMU of a kind the metric's
// event codes are not for (`kinds`) is passed over. Throws UsageError naming an unknown metric, a
// metric no PMU here has, or a missing required term. With `absent`, a platform-neutral name none of
// whose metrics runs here is not refused: it is added to *absent with the reason (pmu-exporter's
// pmukit_metric_unavailable_info, so a fleet's dashboard says so rather than stay empty). `platform`
// (discovery::Inventory::platform) picks a variant for the platform (Metric::applies_to); perf's
// metric pmukit does not count (Catalog::unavailable) is refused with its reason.
struct AbsentMetric {
  std::string name, reason;
};
std::vector<MetricInstance> add_metric_events(const metrics::Catalog& catalog, const std::vector<std::string>& args,
                                              const std::vector<std::string>& pmus, const PmuKinds& kinds,
                                              std::vector<syntax::EventSpec>& specs,
                                              std::vector<AbsentMetric>* absent = nullptr,
                                              std::string_view platform = {});

// The events only metrics need (specs from `first` on, after the -e events): for each, the names
// of the metrics it is an input of, each once, in the order of `instances`.
std::map<std::size_t, std::vector<std::string>> metric_inputs(const std::vector<MetricInstance>& instances,
                                                              std::size_t first);

// What evaluating metrics reuses from one window to the next: the rows (their strings rewritten in
// place), the variables' counts and the expressions' inputs. After the first interval an
// evaluation allocates nothing (unless a value is invalid: its reason is text).
struct MetricScratch {
  std::vector<MetricRow> rows;
  std::map<std::string, double> counts;
  std::vector<double> inputs;
  std::vector<int> sockets;
};

// The metrics' values over a window of `window_ns`, from that window's rows, into `into.rows`.
void evaluate_metrics(const std::vector<MetricInstance>& instances, const std::vector<Row>& rows,
                      std::uint64_t window_ns, const std::map<std::string, double>& parameters, bool per_socket,
                      MetricScratch& into);
// The same into new rows (the totals, pmu-exporter).
std::vector<MetricRow> evaluate_metrics(const std::vector<MetricInstance>& instances, const std::vector<Row>& rows,
                                        std::uint64_t window_ns, const std::map<std::string, double>& parameters,
                                        bool per_socket);

}  // namespace pmukit::counting
