// pmu-exporter -- a Snapshot in the Prometheus text format (0.0.4) or OpenMetrics 1.0.0.
//
// Families: pmukit_uncore_bytes_total and pmukit_uncore_events_total (counters since start, labels
// socket, pmu, event and device for per-device events), one gauge per metric in base units
// (pmukit_<metric>_bytes_per_second, _ratio, _seconds), pmukit_backend_info (which backend counts
// each PMU) and pmukit_reads_total. Every family has HELP and TYPE (and UNIT in OpenMetrics).
#pragma once

#include <string>
#include <string_view>

#include "snapshot.h"

namespace pmukit::exporter {

enum class Exposition { Prometheus, OpenMetrics };

// The format an Accept header asks for: OpenMetrics when application/openmetrics-text is accepted
// at least as much as text/plain (Prometheus asks for it first), the text format otherwise.
Exposition negotiate(std::string_view accept);
const char* content_type(Exposition e);

// `timestamps`: each sample carries the snapshot's time (milliseconds in the text format,
// seconds in OpenMetrics).
std::string render(const Snapshot& s, Exposition e, bool timestamps);

}  // namespace pmukit::exporter
