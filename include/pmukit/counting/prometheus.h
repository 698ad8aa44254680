// pmukit -- series of a counting run (series.h) as Prometheus publishes them: names with the
// pmukit_ prefix and base units (bytes, seconds, ratios; https://prometheus.io/docs/practices/naming/),
// and the text format (0.0.4) or OpenMetrics 1.0.0 of a SeriesSnapshot.
//
// Families: pmukit_uncore_bytes_total and pmukit_uncore_events_total (counters since start, labels
// socket, pmu, event and device for per-device events), one gauge per metric in base units
// (pmukit_<metric or its export_as>_bytes_per_second, _ratio, _seconds; labels socket, pmu and
// platform), pmukit_backend_info (which backend counts
// each PMU), pmukit_build_info (version and platform), pmukit_reads_total and pmukit_metric_window_seconds. Every
// family has HELP and TYPE (and UNIT in OpenMetrics).
#pragma once

#include <string>
#include <string_view>

#include "pmukit/counting/series.h"

namespace pmukit::counting {

struct MetricFamily {
  std::string name;   // pmukit_spr_dram_read_bw_bytes_per_second
  std::string unit;   // bytes_per_second; "" when the unit is not a base unit (cycles)
  double factor = 1;  // value in the metric's unit * factor = value in the family's
};

// A metric of platforms/metrics ("GB/s", "%", "ns", "GHz", "cycles", ...) as a gauge family, named
// after `export_as` when the metric has a platform-neutral name (dram_read_bw and amd_dram_read_bw
// with "dram_read" are both pmukit_dram_read_bytes_per_second), after the metric otherwise.
MetricFamily metric_family(std::string_view metric, std::string_view unit, std::string_view export_as = "");

// [a-zA-Z0-9_] only, everything else as '_' (metric names in platforms/ already are).
std::string name_part(std::string_view text);

enum class Exposition { Prometheus, OpenMetrics };

// The format an Accept header asks for: OpenMetrics when application/openmetrics-text is accepted
// at least as much as text/plain (Prometheus asks for it first), the text format otherwise.
Exposition negotiate(std::string_view accept);
const char* content_type(Exposition e);

// `timestamps`: each sample carries the snapshot's time (milliseconds in the text format,
// seconds in OpenMetrics).
std::string render(const SeriesSnapshot& s, Exposition e, bool timestamps);

}  // namespace pmukit::counting
