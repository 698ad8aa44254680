// pmu-exporter -- Prometheus names and base units.
#include "naming.h"

#include <array>
#include <cctype>
#include <utility>

namespace pmukit::exporter {

std::string name_part(std::string_view text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

MetricFamily metric_family(std::string_view metric, std::string_view unit) {
  struct Base {
    std::string_view unit, suffix;
    double factor;
  };
  // Decimal SI prefixes for rates and frequencies (the metrics' GB/s are 1e9 bytes per second).
  static constexpr std::array<Base, 8> bases{{{"GB/s", "bytes_per_second", 1e9},
                                              {"MB/s", "bytes_per_second", 1e6},
                                              {"B/s", "bytes_per_second", 1},
                                              {"%", "ratio", 0.01},
                                              {"ns", "seconds", 1e-9},
                                              {"us", "seconds", 1e-6},
                                              {"GHz", "hertz", 1e9},
                                              {"MHz", "hertz", 1e6}}};
  const std::string base = "pmukit_" + name_part(metric);
  for (const auto& b : bases)
    if (unit == b.unit) return {base + "_" + std::string(b.suffix), std::string(b.suffix), b.factor};
  if (unit.empty()) return {base, "", 1};
  std::string suffix = name_part(unit);
  if (auto slash = unit.find('/'); slash != std::string_view::npos)
    suffix = name_part(unit.substr(0, slash)) + "_per_" + name_part(unit.substr(slash + 1));
  return {base + "_" + suffix, "", 1};  // "cycles", "requests/cycle": counts, no base unit
}

std::optional<double> bytes_per_unit(std::string_view unit) {
  static constexpr std::array<std::pair<std::string_view, double>, 9> units{{{"B", 1},
                                                                             {"bytes", 1},
                                                                             {"Bytes", 1},
                                                                             {"KiB", 1024.0},
                                                                             {"MiB", 1048576.0},
                                                                             {"GiB", 1073741824.0},
                                                                             {"KB", 1e3},
                                                                             {"MB", 1e6},
                                                                             {"GB", 1e9}}};
  for (const auto& [name, bytes] : units)
    if (unit == name) return bytes;
  return std::nullopt;
}

}  // namespace pmukit::exporter
