// pmukit -- a metric: its self-consistency check and its evaluation from counts.
#include "pmukit/metrics/metric.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/metrics/pmu_type.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::metrics {

namespace {

std::string owner_of(const MetricSpec& s) {
  if (s.file.empty()) return fmt::format("metric '{}'", s.name);
  return fmt::format("{}: metric '{}'", s.file, s.name);
}

bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

Metric::Metric(MetricSpec spec)
    : spec_(std::move(spec)), expression_(Expression::parse(spec_.expression, owner_of(spec_))) {
  std::set<std::string, std::less<>> bound;
  auto bind = [&](const std::string& name, std::string_view what) {
    if (!is_identifier(name)) throw UsageError(fmt::format("{}: {} '{}' is not a name", where(), what, name));
    if (name == kDurationTime || name == kDurationSeconds)
      throw UsageError(fmt::format("{}: {} '{}': the name is reserved for the measurement time", where(), what, name));
    if (!bound.insert(name).second) throw UsageError(fmt::format("{}: '{}' is defined twice", where(), name));
  };
  for (const auto& b : spec_.events) {
    bind(b.variable, "event variable");
    if (b.events.empty()) throw UsageError(fmt::format("{}: event variable '{}' has no event", where(), b.variable));
    if (!b.pmu.empty() && (b.pmu == spec_.pmu || b.pmu.find('%') != std::string::npos))
      throw UsageError(fmt::format("{}: event variable '{}': '{}' is not another PMU's name (a merged name such as "
                                   "uncore_m2m, not a pattern)",
                                   where(), b.variable, b.pmu));
  }
  for (const auto& p : spec_.parameters) {
    bind(p.name, "parameter");
    if (!std::isfinite(p.default_value))
      throw UsageError(fmt::format("{}: parameter '{}' has no finite default", where(), p.name));
  }
  for (const auto& v : expression_.variables()) {
    if (v == kDurationTime || v == kDurationSeconds || v == kNumPackages || bound.count(v)) continue;
    if (v.starts_with("source_count(")) {
      std::string event = v.substr(13, v.size() - 14);
      bool is_event = std::any_of(spec_.events.begin(), spec_.events.end(),
                                  [&](const EventBinding& b) { return b.variable == event; });
      if (is_event) {
        source_counts_.emplace_back(v, std::move(event));
        continue;
      }
    }
    throw UsageError(fmt::format("{}: expression '{}': '{}' is not {}, {}, an event variable or a parameter", where(),
                                 spec_.expression, v, kDurationTime, kDurationSeconds));
  }
  // A binding the formula never reads is a typo in one of the two places, not harmless data.
  for (const auto& name : bound)
    if (!expression_.uses(name) && !expression_.uses(fmt::format("source_count({})", name)))
      throw UsageError(fmt::format("{}: '{}' is not used by the expression '{}'", where(), name, spec_.expression));
  if (std::string why = check_pmu_pattern(spec_.pmu); !why.empty())
    throw UsageError(fmt::format("{}: pmu '{}': {}", where(), spec_.pmu, why));
}

std::string Metric::where() const {
  return owner_of(spec_);
}

bool Metric::matches_pmu(std::string_view pmu_name) const {
  return pmu_name_matches(spec_.pmu, pmu_name);
}

bool Metric::for_platform(std::string_view platform) const {
  const auto listed = [&](const std::vector<std::string>& in) {
    return !platform.empty() && std::find(in.begin(), in.end(), platform) != in.end();
  };
  return (spec_.platforms.empty() || listed(spec_.platforms)) && !listed(spec_.not_platforms);
}

bool Metric::applies_to(std::string_view pmu_name, const platform::PmuKind* kind, std::string_view platform) const {
  if (!pmu_name_matches(spec_.pmu, pmu_name)) return false;
  if (!for_platform(platform)) return false;
  if (!kind) return true;
  const auto& kinds = spec_.pmu_kinds;
  if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), kind->kind) == kinds.end()) return false;
  for (const auto& b : spec_.events)
    for (const auto& e : b.events) {
      if (!b.pmu.empty()) continue;  // another PMU's event: `kind` is the metric's PMU's
      std::string_view first = std::string_view(e).substr(0, e.find(','));
      if (first.find('=') == std::string_view::npos && !kind->events.count(std::string(first))) return false;
    }
  return true;
}

std::vector<std::string> Metric::other_pmus() const {
  std::vector<std::string> out;
  for (const auto& b : spec_.events)
    if (!b.pmu.empty() && std::find(out.begin(), out.end(), b.pmu) == out.end()) out.push_back(b.pmu);
  return out;
}

std::map<std::string, double>
Metric::sum_event_counts(const std::map<std::string, std::vector<double>>& per_event) const {
  std::map<std::string, double> sums;
  for (const auto& b : spec_.events) {
    auto it = per_event.find(b.variable);
    if (it == per_event.end()) throw Error(fmt::format("{}: no counts for '{}'", where(), b.variable));
    if (it->second.size() != b.events.size())
      throw Error(fmt::format("{}: '{}' has {} events but {} counts were given", where(), b.variable, b.events.size(),
                              it->second.size()));
    double sum = 0;
    for (double c : it->second) sum += c;
    sums[b.variable] = sum;
  }
  return sums;
}

void Metric::check_parameters(const std::map<std::string, double>& parameters) const {
  for (const auto& given : parameters) {
    const std::string& name = given.first;  // a named copy: clang 14 cannot capture a structured binding
    auto it = std::find_if(spec_.parameters.begin(), spec_.parameters.end(),
                           [&](const Parameter& p) { return p.name == name; });
    if (it == spec_.parameters.end()) {
      std::vector<std::string> known;
      for (const auto& p : spec_.parameters) known.push_back(p.name);
      throw UsageError(
          fmt::format("{}: unknown parameter '{}' ({})", where(), name,
                      known.empty() ? std::string("it has none") : fmt::format("it has {}", fmt::join(known, ", "))));
    }
  }
}

Evaluation Metric::evaluate(const std::map<std::string, double>& counts, double duration_ns,
                            const std::map<std::string, double>& parameters) const {
  std::vector<double> values;
  return evaluate(counts, duration_ns, parameters, values);
}

Evaluation Metric::evaluate(const std::map<std::string, double>& counts, double duration_ns,
                            const std::map<std::string, double>& parameters, std::vector<double>& values) const {
  check_parameters(parameters);
  if (!(duration_ns >= 0)) throw Error(fmt::format("{}: {} ns is not a measurement time", where(), duration_ns));

  values.clear();
  for (const auto& var : expression_.variables()) {
    if (var == kDurationTime || var == kDurationSeconds) {
      values.push_back(var == kDurationTime ? duration_ns : duration_ns / 1e9);
      continue;
    }
    auto param = std::find_if(spec_.parameters.begin(), spec_.parameters.end(),
                              [&](const Parameter& p) { return p.name == var; });
    if (param != spec_.parameters.end()) {
      auto over = parameters.find(var);
      values.push_back(over != parameters.end() ? over->second : param->default_value);
      continue;
    }
    auto it = counts.find(var);
    if (it == counts.end()) {
      auto b = std::find_if(spec_.events.begin(), spec_.events.end(),
                            [&](const EventBinding& e) { return e.variable == var; });
      throw Error(
          fmt::format("{}: no count for '{}' ({} on {})", where(), var, fmt::join(b->events, " + "), spec_.pmu));
    }
    values.push_back(it->second);
  }
  return expression_.evaluate(std::span<const double>(values));
}

}  // namespace pmukit::metrics
