// pmukit -- one derived metric: a formula over the counts of events on one kernel PMU type.
//
// Units: time is in nanoseconds (DURATION_TIME, like perf's duration_time), so a byte count divided
// by DURATION_TIME is bytes/ns, which is GB/s (10^9 bytes per second), and cycles / DURATION_TIME
// is GHz. Counts are the raw counter values: perf's .scale is not applied to them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmukit/metrics/expression.h"

namespace pmukit::platform {
struct PmuKind;
}

namespace pmukit::metrics {

// The variable every metric may read for the measurement time, in nanoseconds.
inline constexpr std::string_view kDurationTime = "DURATION_TIME";
// perf's duration_time, as perf's metric files use it: the measurement time in seconds.
inline constexpr std::string_view kDurationSeconds = "duration_time";
// perf's #num_packages: the sockets whose counts the evaluation adds up (the caller's value).
inline constexpr std::string_view kNumPackages = "#num_packages";

// An expression variable and the event(s) it stands for, in perf term syntax on the metric's PMU,
// or on `pmu` when the metric's formula adds counts of another uncore PMU type (perf's
// memory_extra_write_bw_due_to_directory_updates adds M2M counts to CHA counts): that variable is
// summed over the units of its own PMU type, in the same scope as the metric's (the whole machine,
// or one socket with --per-socket), as perf sums an uncore event over all its PMU instances.
// With several events the variable is their sum (e.g. one CMN event on each of four CCLA nodes).
struct EventBinding {
  std::string variable;             // "CMEM_RD_DATA"
  std::vector<std::string> events;  // {"cmem_rd_data"}, {"type=0x105,eventid=0x22,bynodeid=1,nodeid=413", ...}
  std::string pmu;                  // "" = the metric's PMU; else one PMU or merged PMU name: "uncore_m2m"
};

// A named constant of the formula with a default the user may override (CMN_FREQ_GHZ = 1.8).
struct Parameter {
  std::string name;
  double default_value = 0;
  std::string unit;
  std::string description;
};

// What a metrics file says about one metric (see docs/metrics.md for the file format).
struct MetricSpec {
  std::string name;  // "scf_local_mem_read_bw"
  std::string description;
  std::string unit;  // "GB/s", "%", "ns", "GHz", "cycles", "requests/cycle"
  std::string pmu;   // kernel PMU name pattern: "nvidia_scf_pmu_%u", or one PMU "nvidia_scf_pmu_0"
  std::vector<EventBinding> events;
  std::vector<Parameter> parameters;
  std::vector<std::string> required_terms;  // terms the user must add to every event ("root_port")
  // The PMU kinds (platforms/pmus) whose event codes `events` are: a PMU name is shared by
  // generations that code an event differently (uncore_imc: CAS reads are 0x05/0xcf on SPR,
  // 0x04/0x03 on SKX). Empty: any kind.
  std::vector<std::string> pmu_kinds;
  // The platforms (platforms/cpus.json names, discovery::Inventory::platform: "srf") the formula is
  // for, where one PMU kind serves several whose perf formulas differ (Sierra Forest counts
  // IA_MISS_DRD_OPT where Sapphire Rapids' CHA, the same kind, counts IA_MISS_DRD). Empty: any.
  std::vector<std::string> platforms;
  // Platforms the formula is not for (another variant's, or perf ships no such metric there).
  std::vector<std::string> not_platforms;
  std::string expression;  // "CMEM_RD_DATA * 32 / DURATION_TIME"
  // The platform-neutral name exporters publish the metric under ("dram_read": Prometheus'
  // pmukit_dram_read_bytes_per_second), the same on every platform whose metric measures the same
  // thing; "" = the metric's own name.
  std::string export_as;
  std::string source;  // the document and section the formula comes from
  // perf's MetricGroup ("No_group" where perf's metric has none, as perf list shows it); "" = the
  // metric is not perf's, and --list-metrics groups it under its family.
  std::string metric_group;
  std::string family;  // the file's family: "grace"
  std::string file;    // "metrics/grace.json", "" when made in code
};

class Metric {
 public:
  // Parses the expression and checks the spec is self-consistent: every variable the expression
  // reads is DURATION_TIME, a bound event or a parameter; every binding and parameter is used; no
  // name is bound twice. Throws UsageError("<file>: metric '<name>': <reason>").
  explicit Metric(MetricSpec spec);

  const MetricSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  const std::string& unit() const { return spec_.unit; }
  const std::string& pmu() const { return spec_.pmu; }
  const std::vector<EventBinding>& events() const { return spec_.events; }
  const std::vector<Parameter>& parameters() const { return spec_.parameters; }
  const Expression& expression() const { return expression_; }
  bool uses_duration() const { return expression_.uses(kDurationTime) || expression_.uses(kDurationSeconds); }
  bool uses_num_packages() const { return expression_.uses(kNumPackages); }
  // The expression's source_count(X) variables: {"source_count(X)", "X"}, X an event variable.
  const std::vector<std::pair<std::string, std::string>>& source_counts() const { return source_counts_; }

  // Does the metric run on this kernel PMU ("nvidia_scf_pmu_1")? When pmukit knows the PMU's kind,
  // also: the kind is one of pmu_kinds (if given), and every named event (an event without '=':
  // "cas_count_read") is one the kind defines, so one metric can serve every generation that names
  // the event alike. With the machine's platform ("spr"; "" when not known), also: the platform is
  // one of `platforms` (if given; an unknown platform is none of them) and none of `not_platforms`.
  bool applies_to(std::string_view pmu_name, const platform::PmuKind* kind = nullptr,
                  std::string_view platform = {}) const;
  // The PMUs other than its own that the metric's variables count on ("uncore_m2m"), each once.
  std::vector<std::string> other_pmus() const;
  // Whether the PMU name is of the metric's PMU type (or is its one PMU), whatever its kind and platform.
  bool matches_pmu(std::string_view pmu_name) const;
  // Whether the formula is for this platform ("" when not known): see applies_to.
  bool for_platform(std::string_view platform) const;

  // Adds up the counts of each variable's events: per_event[variable][i] is the count of
  // events()[..].events[i]. Throws Error if a variable is missing or has the wrong number of
  // counts.
  std::map<std::string, double> sum_event_counts(const std::map<std::string, std::vector<double>>& per_event) const;

  // counts: one raw count per event variable (summed over its events; extra keys are ignored);
  // duration_ns: the measurement time; parameters: overrides of parameter defaults. Division by
  // zero (no cycles, no requests) gives an invalid Evaluation, not an exception. Throws Error for a
  // missing count or a negative duration, UsageError for an unknown parameter.
  Evaluation evaluate(const std::map<std::string, double>& counts, double duration_ns,
                      const std::map<std::string, double>& parameters = {}) const;
  // The same, gathering the expression's inputs in `inputs` (the caller's, reused from one
  // evaluation to the next: evaluating per interval allocates nothing once it has grown).
  Evaluation evaluate(const std::map<std::string, double>& counts, double duration_ns,
                      const std::map<std::string, double>& parameters, std::vector<double>& inputs) const;

 private:
  std::string where() const;
  // Throws UsageError for a parameter the metric does not have.
  void check_parameters(const std::map<std::string, double>& parameters) const;

  MetricSpec spec_;
  Expression expression_;
  std::vector<std::pair<std::string, std::string>> source_counts_;
};

}  // namespace pmukit::metrics
