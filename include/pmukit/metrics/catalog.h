// pmukit -- the metric catalog: every metric definition in platforms/metrics/, checked and indexed.
//
// Two kinds of file (docs/metrics.md has the format):
//   {"schema": "pmukit-pmu-types/1", "pmu_types": [...]}  -- PMU types: name pattern, terms, events
//   {"schema": "pmukit-metrics/1", "family": ..., "metrics": [...]}  -- metric definitions
// Loading checks everything a typo could break: unknown keys, units, PMU types, event names and
// terms against the PMU type, expressions, and variables bound to nothing or used by nothing.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pmukit/metrics/metric.h"
#include "pmukit/metrics/pmu_type.h"
#include "pmukit/platform/embedded.h"

namespace pmukit::metrics {

inline constexpr std::string_view kMetricsSchema = "pmukit-metrics/1";
inline constexpr std::string_view kPmuTypesSchema = "pmukit-pmu-types/1";

// One of perf's metrics that pmukit does not count, and why (a metrics file's "unavailable"):
// perf's llc_data_read_mpi_demand_plus_prefetch divides CHA counts by the core's INST_RETIRED.ANY.
struct UnavailableMetric {
  std::string name;                    // perf's metric name
  std::string description;             // what it measures
  std::vector<std::string> platforms;  // where perf ships it (platforms/cpus.json names: "spr", "skx")
  std::string reason;                  // why pmukit does not count it there, one line
  std::string source;                  // where perf's formula is
  std::string family, file;
};

class Catalog {
 public:
  // Every metrics/*.json compiled into the library. Throws UsageError if one is invalid (the unit
  // tests load it, so that cannot ship).
  static Catalog embedded();

  // Loads files given as {path, text}: all PMU type files first, then the metric files in the
  // order given. Throws UsageError("<path>: metric '<name>': <reason>") at the first problem.
  static Catalog from_files(std::span<const platform::EmbeddedFile> files);

  // Adds one more file (say, the user's own metrics), checked against the PMU types known so far.
  // Pointers and references into the catalog stay valid until the next add_file.
  void add_file(std::string_view path, std::string_view text);
  void add_file(const std::filesystem::path& path);

  // All metrics, in file order.
  const std::vector<Metric>& metrics() const { return metrics_; }
  const std::vector<PmuType>& pmu_types() const { return pmu_types_; }

  // The metric of this name (its first variant, when it has a formula per generation).
  const Metric* find(std::string_view name) const;
  // Every variant of the metric of this name, in file order: one per generation's formula (perf's
  // uncore_frequency on Skylake-SP, Ice Lake-SP and Sapphire Rapids); empty if there is none.
  std::vector<const Metric*> variants(std::string_view name) const;
  // perf's metrics pmukit does not count, in file order, and the one of this name for a platform
  // ("" = any platform), or nullptr.
  const std::vector<UnavailableMetric>& unavailable() const { return unavailable_; }
  const UnavailableMetric* find_unavailable(std::string_view name, std::string_view platform = {}) const;
  // Throws UsageError("unknown metric '<name>'").
  const Metric& at(std::string_view name) const;

  // Metrics for a PMU type pattern ("nvidia_scf_pmu_%u": all of that type, including those tied to
  // one instance) or for a kernel PMU name ("nvidia_scf_pmu_1": the ones that run on it).
  std::vector<const Metric*> for_pmu(std::string_view pmu) const;

  // The PMU type with this pattern, or the one a PMU name ("nvidia_pcie_pmu_0_rc_2") belongs to.
  const PmuType* find_pmu_type(std::string_view pattern_or_name) const;

 private:
  void add_pmu_types(std::string_view path, const nlohmann::json& file);
  void add_metrics(std::string_view path, const nlohmann::json& file);
  void add_variants(std::string_view path, const std::string& family, const nlohmann::json& m,
                    const std::string& where);

  std::vector<PmuType> pmu_types_;
  std::vector<Metric> metrics_;
  std::vector<UnavailableMetric> unavailable_;
};

}  // namespace pmukit::metrics
