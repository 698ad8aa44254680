// pmu-exporter -- Prometheus names: the pmukit_ prefix, base units in names (bytes, seconds,
// ratios), and the conversion of pmukit's units into them
// (https://prometheus.io/docs/practices/naming/).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pmukit::exporter {

struct MetricFamily {
  std::string name;   // pmukit_spr_dram_read_bw_bytes_per_second
  std::string unit;   // bytes_per_second; "" when the unit is not a base unit (cycles)
  double factor = 1;  // value in the metric's unit * factor = value in the family's
};

// A metric of platforms/metrics ("GB/s", "%", "ns", "GHz", "cycles", ...) as a gauge family.
MetricFamily metric_family(std::string_view metric, std::string_view unit);

// Bytes per unit of an event's .unit (MiB, KiB, GiB, B, bytes...); nullopt for a unit that is not
// an amount of data.
std::optional<double> bytes_per_unit(std::string_view unit);

// [a-zA-Z0-9_] only, everything else as '_' (metric names in platforms/ already are).
std::string name_part(std::string_view text);

}  // namespace pmukit::exporter
