// pmukit -- setting up a counting run.
#include "pmukit/counting/counting.h"
#include "pmukit/families/registry.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/counting/event_names.h"
#include "pmukit/counting/pmu_places.h"
#include "pmukit/events/builtin_events.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::counting {

namespace {

// Each events argument numbers its {...} groups from 0: renumber them so that groups of different
// arguments stay apart (a multiplexed unit keeps each group whole).
std::vector<syntax::EventSpec> parse_events(const std::vector<std::string>& lists) {
  std::vector<syntax::EventSpec> specs;
  int groups = 0;
  for (const auto& e : lists) {
    int last = -1;
    for (auto& p : syntax::parse_event_list(e)) {
      if (p.group >= 0) last = std::max(last, p.group), p.group += groups;
      specs.push_back(std::move(p));
    }
    groups += last + 1;
  }
  return specs;
}

// Adds the specs' bare words that a kernel PMU of this machine names in its sysfs events/ (Linux's
// uncore_imc_free_running_0/events/wpq_cycles, which pmukit's database does not list): perf takes
// them as that PMU's, so they are neither perf's JSON names nor misspellings of them.
void add_sysfs_event_names(const Machine& machine, const std::vector<syntax::EventSpec>& specs,
                           std::set<std::string, std::less<>>& kernel_names) {
  std::optional<std::vector<std::string>> pmus;  // read once, and only for a word not known already
  const auto events_path = machine.param("events.path");
  for (const auto& s : specs)
    for (const auto& t : s.terms) {
      if (t.value || t.key.empty() || t.key[0] == '.' || kernel_names.count(to_lower(t.key))) continue;
      if (!pmus) pmus = perf::pmu_names(machine);
      for (const auto& pmu : *pmus)
        if (machine.files().stat(events_path / pmu / "events" / t.key)) {
          kernel_names.insert(to_lower(t.key));
          break;
        }
    }
}

// perf's names (-e unc_m_cas_count.rd, uncore_imc/unc_m_cas_count.rd/): the --event-file files
// first, then the uncore events perf knows on this CPU model; a name the kernel gives a PMU here
// (cas_count_read, or any name in a kernel PMU's sysfs events/) keeps its kernel meaning.
std::map<std::size_t, SpecScale> apply_event_names(const Machine& machine,
                                                   const std::vector<events::PerfmonEvents>& event_files,
                                                   const discovery::Inventory& inventory,
                                                   std::vector<syntax::EventSpec>& specs) {
  std::vector<std::string> kinds;
  for (const auto& [kind, units] : units_by_kind(inventory)) kinds.push_back(kind);
  auto kernel_names = kernel_event_names(kinds);
  // The built-in list is parsed only when a spec has a name it may hold (a term without a value
  // that no PMU here defines): not for -M alone or the kernel's names.
  const bool names = std::any_of(specs.begin(), specs.end(), [&](const syntax::EventSpec& s) {
    return !is_duration_time(s) && std::any_of(s.terms.begin(), s.terms.end(), [&](const syntax::Term& t) {
      return !t.value && !kernel_names.count(to_lower(t.key));
    });
  });
  if (names || !event_files.empty()) add_sysfs_event_names(machine, specs, kernel_names);
  std::vector<const events::PerfmonEvents*> files;
  for (const auto& f : event_files) files.push_back(&f);
  if (const auto* builtin = names ? events::builtin_uncore_events(inventory.platform) : nullptr)
    files.push_back(builtin);
  return apply_event_files(files, specs, kernel_names);
}

}  // namespace

bool is_duration_time(const syntax::EventSpec& s) {
  return s.pmu.empty() && s.terms.size() == 1 && s.terms[0].key == "duration_time";
}

std::vector<std::string> pmu_names(const Machine& machine, const discovery::Inventory& inventory) {
  std::vector<std::string> names;
  for (const auto& u : inventory.units) {
    names.push_back(u.name);
    for (const auto& a : u.aliases) names.push_back(a.name);  // pcie_bdf_200: events and metrics take either name
  }
  for (auto& p : perf::pmu_names(machine)) names.push_back(std::move(p));  // names only: one bad PMU stops nothing
  std::map<std::string, std::size_t> numbered;
  for (const auto& n : names)
    if (auto family = numbered_family(n)) ++numbered[std::string(*family)];
  for (const auto& [prefix, count] : numbered)
    if (count > 1) names.push_back(prefix);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Run::Run(Machine& machine, const Request& request, const std::function<void(const std::string&)>& note)
    : specs(parse_events(request.events)), params(request.metric_params), per_socket(request.backend.per_socket) {
  std::vector<events::PerfmonEvents> event_files;
  for (const auto& f : request.event_files) event_files.push_back(events::PerfmonEvents::load(f));
  machine.check_no_links(machine.param("sim.path") / "clock");  // mapped read-write by name
  time = sim::machine_clock(machine);
  found = request.discovered ? *request.discovered : families::discover(machine);
  spec_scales = apply_event_names(machine, event_files, found.inventory, specs);  // names resolve on the whole machine
  keep_units_on_cpus(found.inventory, found.topology, request.cpus);
  asked_events = specs.size();
  if (!request.metrics.empty() || request.iio_scope != IioScope::None) catalog = pmukit::metrics::Catalog::embedded();
  if (request.iio_scope != IioScope::None)
    metrics = add_iio_metric_events(machine, found, catalog, request.metrics, pmu_names(machine, found.inventory),
                                    request.iio_scope, specs, warnings);
  else {  // a neutral name that is an IIO metric here is counted per IIO stack, the others as named
    std::vector<std::string> rest = request.metrics;
    const auto pmus = pmu_names(machine, found.inventory);
    metrics = add_neutral_iio_metrics(machine, found, catalog, rest, pmus, specs, warnings);
    auto named =
        add_metric_events(catalog, rest, pmus, pmu_kinds_here(found.inventory), specs,
                          request.neutral_metrics_optional ? &absent_metrics : nullptr, found.inventory.platform);
    metrics.insert(metrics.end(), std::make_move_iterator(named.begin()), std::make_move_iterator(named.end()));
  }
  if (std::all_of(specs.begin(), specs.end(), is_duration_time) && !absent_metrics.empty())
    throw UsageError(
        fmt::format("{}: {}: nothing else to count here", absent_metrics.front().name, absent_metrics.front().reason));
  if (std::all_of(specs.begin(), specs.end(), is_duration_time))
    throw UsageError("only duration_time given: add an event");
  std::function<void(const std::string&)> told = note;
  if (!told) told = [](const std::string& m) { std::fprintf(stderr, "pmukit: %s\n", m.c_str()); };
  backend = make_backend(machine, specs, found, request.backend, time, is_duration_time, told);
}

}  // namespace pmukit::counting
