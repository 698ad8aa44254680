// pmukit -- running metrics.
#include "pmukit/counting/metric_runner.h"

#include <algorithm>
#include <bit>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/perf/event_set.h"
#include "pmukit/platform/database.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "pmukit/util/suggest.h"

namespace pmukit::counting {

namespace {

// A PMU name pattern as a user reads it: armv8_pmuv3_N, nvidia_pcie_pmu_N_rc_N (each %u or %x is
// a number, metrics/pmu_type.h).
std::string pmu_pattern_shown(std::string pattern) {
  for (auto at = pattern.find('%'); at != std::string::npos && at + 1 < pattern.size(); at = pattern.find('%', at))
    pattern.replace(at, 2, "N");
  return pattern;
}

// The sockets an instance's rows are on (1 for one socket, or for rows placed on none).
double packages(const MetricInstance& inst, const std::vector<Row>& rows, int socket) {
  if (socket >= 0) return 1;
  std::uint64_t seen = 0;  // a bit a socket: no allocation per window
  for (const auto& [variable, specs] : inst.specs)
    for (const auto& r : rows)
      if (r.socket >= 0 && std::find(specs.begin(), specs.end(), r.spec) != specs.end())
        seen |= std::uint64_t{1} << (r.socket % 64);
  return seen ? static_cast<double>(std::popcount(seen)) : 1.0;
}

// The count of each of the metric's variables, into `counts`: the sum of its specs' rows (of one
// socket, or of all with socket < 0). Not cleared: other instances' variables left in it are
// ignored by the evaluation, and a key kept is a node not allocated again next window.
void variable_counts(const MetricInstance& inst, const std::vector<Row>& rows, int socket,
                     std::map<std::string, double>& counts) {
  for (const auto& [variable, specs] : inst.specs) {
    double sum = 0;  // a variable bound to several events is their sum (the four CCLA nodes)
    for (std::size_t s : specs)
      for (const auto& r : rows)
        if (r.spec == s && (socket < 0 || r.socket == socket)) sum += static_cast<double>(r.count);
    counts[variable] = sum;
  }
  // perf's source_count(X) (the PMUs that counted X) and #num_packages (the sockets summed).
  for (const auto& [name, variable] : inst.metric->source_counts()) {
    double n = 0;
    const auto& specs = inst.specs.at(variable);
    auto counted = [&](const Row& r) {
      return std::find(specs.begin(), specs.end(), r.spec) != specs.end() && (socket < 0 || r.socket == socket);
    };
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!counted(rows[i])) continue;
      bool first = true;  // the first row of its PMU name: the other sockets' rows of that PMU are the same PMU
      for (std::size_t j = 0; j < i && first; ++j) first = !(counted(rows[j]) && rows[j].pmu == rows[i].pmu);
      n += first ? 1 : 0;
    }
    counts[name] = n;
  }
  if (inst.metric->uses_num_packages()) counts[std::string(metrics::kNumPackages)] = packages(inst, rows, socket);
}

// Whether the instance has a row on `socket` (every socket does for -1, and where none of its rows
// has a socket): --per-socket shows no line for a socket its PMU is not on (amd_umc_0 is on
// socket 0 only), where it would read 0.
bool counts_on(const MetricInstance& inst, const std::vector<Row>& rows, int socket) {
  if (socket < 0) return true;
  bool placed = false;
  for (const auto& [variable, specs] : inst.specs)
    for (std::size_t s : specs)
      for (const auto& r : rows) {
        if (r.spec != s || r.socket < 0) continue;
        if (r.socket == socket) return true;
        placed = true;
      }
  return !placed;
}

// Text rewritten in place: within its capacity, no allocation.
template <class... Args>
void set_text(std::string& to, fmt::format_string<Args...> format, Args&&... args) {
  to.clear();
  fmt::format_to(std::back_inserter(to), format, std::forward<Args>(args)...);
}

// The next row of `out` (reused when it is there from the last window), at `used`.
MetricRow& next_row(MetricScratch& out, std::size_t& used) {
  if (used == out.rows.size()) out.rows.emplace_back();
  return out.rows[used++];
}

void set_value(MetricRow& m, const metrics::Evaluation& e) {
  m.value = e.value;
  m.valid = e.valid;
}

// A --per-device or --per-stack instance: one row under its own group, or why it has no value.
void own_row(const MetricInstance& inst, const std::vector<Row>& rows, std::uint64_t window_ns,
             const std::map<std::string, double>& parameters, MetricScratch& out, MetricRow& m) {
  m.group = inst.group;
  if (inst.label.empty())
    m.name = inst.metric->name();
  else
    set_text(m.name, "{} ({})", inst.metric->name(), inst.label);
  m.metric = inst.metric;
  m.pmu = inst.pmu;
  m.socket = inst.socket;
  m.unit = inst.metric->unit();
  m.detail = inst.detail;
  m.reason = inst.reason;
  m.value = 0;
  m.valid = false;
  if (!inst.reason.empty()) return;
  variable_counts(inst, rows, inst.socket, out.counts);
  set_value(m, inst.metric->evaluate(out.counts, static_cast<double>(window_ns), parameters, out.inputs));
}

// A variable bound to several events (the guide's four CCLA nodes): the metric of each event
// alone, the other variables as counted, after the summed row (at out.rows[summed]). Named by the
// event's terms.
void add_member_rows(const MetricInstance& inst, const std::vector<Row>& rows, std::uint64_t window_ns,
                     const std::map<std::string, double>& parameters, std::size_t summed, MetricScratch& out,
                     std::size_t& used) {
  for (const auto& [variable, specs] : inst.specs) {
    if (specs.size() < 2) continue;
    for (std::size_t s : specs) {
      const int socket = out.rows[summed].socket;
      variable_counts(inst, rows, socket, out.counts);
      double& count = out.counts[variable];
      count = 0;
      std::string_view name;
      for (const auto& r : rows)
        if (r.spec == s && (socket < 0 || r.socket == socket)) count += static_cast<double>(r.count), name = r.event;
      auto e = inst.metric->evaluate(out.counts, static_cast<double>(window_ns), parameters, out.inputs);
      MetricRow& m = next_row(out, used);  // may move the rows: the summed one is named by index
      const MetricRow& sum = out.rows[summed];
      m.group = sum.group, m.metric = sum.metric, m.pmu = sum.pmu, m.socket = sum.socket, m.unit = sum.unit;
      m.detail = sum.detail, m.reason = sum.reason;
      auto slash = name.find('/');
      set_text(m.name, "{} ({})", inst.metric->name(),
               slash == std::string_view::npos ? name : name.substr(0, name.size() - 1));
      set_value(m, e);
    }
  }
}

// Whether every PMU of `wanted` (the metric's variables on other PMU types: "uncore_m2m") is here.
bool has_pmus(const std::vector<std::string>& pmus, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(),
                     [&](const std::string& w) { return std::find(pmus.begin(), pmus.end(), w) != pmus.end(); });
}

// Why a metric runs on no PMU here: none of its name, or (a generation's event codes) none of its kinds.
std::string no_pmu_for(const std::vector<const metrics::Metric*>& variants, const std::string& arg,
                       const std::vector<std::string>& pmus, const PmuKinds& kinds, std::string_view platform) {
  std::vector<std::string> of;  // the kinds of every variant (a formula per generation)
  for (const auto* v : variants) of.insert(of.end(), v->spec().pmu_kinds.begin(), v->spec().pmu_kinds.end());
  for (const auto* v : variants)
    for (const auto& pmu : pmus)
      if (v->matches_pmu(pmu) && !v->for_platform(platform))
        return fmt::format("-M '{}': perf's formula for {} PMUs here is for other platforms than this one ({})", arg,
                           pmu, platform.empty() ? "not known" : platform);
  for (const auto* v : variants)
    for (const auto& other : v->other_pmus())
      for (const auto& pmu : pmus)
        if (v->applies_to(pmu, kind_of(kinds, pmu), platform) && !has_pmus(pmus, {other}))
          return fmt::format("-M '{}': it adds counts of {} PMUs to those of {}, and this machine has no {}", arg,
                             other, pmu, other);
  for (const auto* v : variants)
    for (const auto& pmu : pmus)
      if (v->matches_pmu(pmu)) {
        const auto* k = kind_of(kinds, pmu);
        return fmt::format("-M '{}': its events are those of {} PMUs, and {} here is {} (pmu-raw --list-metrics "
                           "lists the metrics of this machine)",
                           arg, of.empty() ? "other" : fmt::format("{}", fmt::join(of, "/")), pmu,
                           k ? k->kind : "another kind");
      }
  return fmt::format("-M '{}': it counts on {} PMUs, and this machine has none", arg, variants.front()->pmu());
}

}  // namespace

std::vector<std::string> split_metric_list(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& arg : args) {
    bool in_terms = false;  // between NAME/ and the closing /
    std::string item;
    for (char c : arg) {
      if (c == ',' && !in_terms) {
        if (!item.empty()) out.push_back(std::move(item));
        item.clear();
        continue;
      }
      if (c == '/') in_terms = !in_terms;
      item += c;
    }
    if (!item.empty()) out.push_back(std::move(item));
  }
  return out;
}

MetricInstance bind_metric(const metrics::Metric& metric, const std::string& pmu, const std::string& extra,
                           std::vector<syntax::EventSpec>& specs) {
  MetricInstance inst;
  inst.metric = &metric;
  inst.pmu = pmu;
  for (const auto& b : metric.events())
    for (const auto& ev : b.events) {  // a variable on another PMU type counts on that type's units
      std::string text = fmt::format("{}/{}{}{}/", b.pmu.empty() ? pmu : b.pmu, ev, extra.empty() ? "" : ",", extra);
      std::size_t index = specs.size();
      for (std::size_t i = 0; i < specs.size(); ++i)
        if (specs[i].text == text) index = i;
      if (index == specs.size()) specs.push_back(syntax::parse_event_list(text).at(0));
      inst.specs[b.variable].push_back(index);
    }
  return inst;
}

namespace {

// "NAME" or "NAME/TERMS/" -> the name and the terms.
std::pair<std::string, std::string> metric_arg(const std::string& arg) {
  auto slash = arg.find('/');
  if (slash == std::string::npos) return {arg, ""};
  std::string extra = arg.substr(slash + 1);
  if (extra.empty() || extra.back() != '/') throw UsageError(fmt::format("-M '{}': expected NAME/TERMS/", arg));
  extra.pop_back();
  return {arg.substr(0, slash), extra};
}

// Why perf's metric of this name is not counted here (on this platform, or on any when "" or not
// listed for it): where perf has it, and the reason.
std::string unavailable_text(const std::string& arg, const metrics::Catalog& catalog, std::string_view platform) {
  const metrics::UnavailableMetric* u = catalog.find_unavailable(arg, platform);
  if (!u) u = catalog.find_unavailable(arg);
  return fmt::format("-M '{}': perf's metric on {} ({}), which pmukit does not count: {}", arg,
                     fmt::join(u->platforms, "/"), u->description, u->reason);
}

// The metrics an argument names: the metric of that name, or else every metric exported under that
// platform-neutral name (export_as: "dram_read" is dram_read_bw on Intel, amd_dram_read_bw on AMD).
std::vector<const metrics::Metric*> named_metrics(const metrics::Catalog& catalog, const std::string& name) {
  if (auto variants = catalog.variants(name); !variants.empty()) return variants;
  std::vector<const metrics::Metric*> out;
  for (const auto& m : catalog.metrics())
    if (m.spec().export_as == name) out.push_back(&m);
  if (out.empty() && catalog.find_unavailable(name)) throw UsageError(unavailable_text(name, catalog, {}));
  if (out.empty()) {
    std::vector<std::string> names;  // every metric's and neutral name, for "did you mean"
    for (const auto& m : catalog.metrics()) {
      names.push_back(m.name());
      if (!m.spec().export_as.empty()) names.push_back(m.spec().export_as);
    }
    throw UsageError(
        fmt::format("-M '{}': no such metric{} (pmu-raw --list-metrics lists them)", name, did_you_mean(name, names)));
  }
  return out;
}

// Whether `extra` gives every term the metric requires.
bool has_terms(const metrics::Metric& m, const std::string& extra) {
  for (const auto& term : m.spec().required_terms)
    if (extra.find(term + "=") == std::string::npos) return false;
  return true;
}

// Why no metric exported under a neutral name runs here: the PMUs they count on.
// Each metric and PMU once: platform variants of one metric name the same PMU type.
std::string neutral_absent_reason(const std::vector<const metrics::Metric*>& named) {
  std::vector<std::string> seen;
  for (const auto* n : named) {
    auto one = n->name() + " on " + pmu_pattern_shown(n->pmu());
    if (std::find(seen.begin(), seen.end(), one) == seen.end()) seen.push_back(std::move(one));
  }
  return fmt::format("no PMU here counts it ({})", fmt::join(seen, ", "));
}

}  // namespace

std::vector<MetricInstance> add_metric_events(const metrics::Catalog& catalog, const std::vector<std::string>& args,
                                              const std::vector<std::string>& pmus, const PmuKinds& kinds,
                                              std::vector<syntax::EventSpec>& specs, std::vector<AbsentMetric>* absent,
                                              std::string_view platform) {
  std::vector<MetricInstance> out;
  for (const auto& arg : split_metric_list(args)) {
    const auto [name, extra] = metric_arg(arg);
    const auto named = named_metrics(catalog, name);
    const std::size_t before = out.size();
    const bool neutral = !catalog.find(name);
    for (const metrics::Metric* m : named) {
      // Under a neutral name, a metric that needs a filter term (an IIO metric's ch_mask) is bound
      // by whoever knows the filter (add_neutral_iio_metrics: per IIO stack), not here.
      if (neutral && !has_terms(*m, extra)) continue;
      for (const auto& term : m->spec().required_terms)
        if (extra.find(term + "=") == std::string::npos)
          throw UsageError(
              fmt::format("-M '{}': this metric needs the {} term, e.g. -M '{}/{}=0x100/'", name, term, name, term));
      for (const auto& pmu : pmus)
        if (m->applies_to(pmu, kind_of(kinds, pmu), platform) && has_pmus(pmus, m->other_pmus()))
          out.push_back(bind_metric(*m, pmu, extra, specs));
    }
    const metrics::Metric* m = named.front();
    if (out.size() == before && absent && neutral) {
      absent->push_back({name, neutral_absent_reason(named)});
      continue;
    }
    if (out.size() == before && named.size() > 1 && !catalog.find(name))
      throw UsageError(fmt::format("-M '{}': none of the metrics exported under this name runs here", arg));
    if (out.size() == before && perf::is_core_pmu_name(m->pmu()))
      throw Error(fmt::format("-M '{}': a core metric, counted through the kernel's perf on the CPU's core PMU ({}), "
                              "and this machine's kernel has none (no core PMU driver, or a virtual machine without "
                              "a virtual PMU)",
                              name, pmu_pattern_shown(m->pmu())));
    if (out.size() == before && catalog.find_unavailable(name, platform))
      throw UsageError(unavailable_text(name, catalog, platform));
    if (out.size() == before) throw UsageError(no_pmu_for(named, arg, pmus, kinds, platform));
  }
  return out;
}

std::map<std::size_t, std::vector<std::string>> metric_inputs(const std::vector<MetricInstance>& instances,
                                                              std::size_t first) {
  std::map<std::size_t, std::vector<std::string>> out;
  for (const auto& inst : instances)
    for (const auto& [variable, specs] : inst.specs)
      for (std::size_t s : specs) {
        if (s < first) continue;
        auto& names = out[s];
        if (std::find(names.begin(), names.end(), inst.metric->name()) == names.end())
          names.push_back(inst.metric->name());
      }
  return out;
}

void evaluate_metrics(const std::vector<MetricInstance>& instances, const std::vector<Row>& rows,
                      std::uint64_t window_ns, const std::map<std::string, double>& parameters, bool per_socket,
                      MetricScratch& out) {
  auto& sockets = out.sockets;  // sorted, each once
  sockets.clear();
  if (per_socket)
    for (const auto& r : rows)
      if (r.socket >= 0 && std::find(sockets.begin(), sockets.end(), r.socket) == sockets.end())
        sockets.push_back(r.socket);
  std::sort(sockets.begin(), sockets.end());
  if (sockets.empty()) sockets.push_back(-1);
  std::size_t used = 0;
  for (const auto& inst : instances) {
    if (!inst.group.empty()) {
      own_row(inst, rows, window_ns, parameters, out, next_row(out, used));
      continue;
    }
    for (int socket : sockets) {
      if (!counts_on(inst, rows, socket)) continue;
      variable_counts(inst, rows, socket, out.counts);
      auto e = inst.metric->evaluate(out.counts, static_cast<double>(window_ns), parameters, out.inputs);
      const std::size_t at = used;
      MetricRow& m = next_row(out, used);
      if (socket >= 0)
        set_text(m.group, "S{}", socket);
      else
        m.group.clear();
      set_text(m.name, "{} ({})", inst.metric->name(), inst.pmu);
      m.metric = inst.metric;
      m.pmu = inst.pmu;
      m.socket = socket;
      m.unit = inst.metric->unit();
      m.detail.clear();
      m.reason.clear();
      set_value(m, e);
      add_member_rows(inst, rows, window_ns, parameters, at, out, used);
    }
  }
  out.rows.resize(used);
}

std::vector<MetricRow> evaluate_metrics(const std::vector<MetricInstance>& instances, const std::vector<Row>& rows,
                                        std::uint64_t window_ns, const std::map<std::string, double>& parameters,
                                        bool per_socket) {
  MetricScratch out;
  evaluate_metrics(instances, rows, window_ns, parameters, per_socket, out);
  return std::move(out.rows);
}

}  // namespace pmukit::counting
