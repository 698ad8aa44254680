// pmukit tools -- setting up a counting run (pmu-raw, pmu-exporter).
#include "common/counting_setup.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::tools {

bool is_duration_time(const syntax::EventSpec& s) {
  return s.pmu.empty() && s.terms.size() == 1 && s.terms[0].key == "duration_time";
}

std::map<std::string, double> parse_metric_params(const std::vector<std::string>& args) {
  std::map<std::string, double> params;
  for (const auto& a : args) {
    auto eq = a.find('=');
    try {
      if (eq == std::string::npos || eq == 0) throw std::invalid_argument(a);
      double v = std::stod(a.substr(eq + 1));
      if (!std::isfinite(v)) throw std::invalid_argument(a);
      params[a.substr(0, eq)] = v;
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--metric-param '{}': expected NAME=NUMBER", a));
    }
  }
  return params;
}

std::vector<std::string> pmu_names(const Machine& machine, const discovery::Inventory& inventory) {
  std::vector<std::string> names;
  for (const auto& u : inventory.units) {
    names.push_back(u.name);
    for (const auto& a : u.aliases) names.push_back(a.name);  // pcie_bdf_200: -e and -M take either name
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

void set_up_counting(Machine& machine, const CountingRequest& request, CountingSetup& run) {
  // Each -e list numbers its {...} groups from 0: renumber them so that groups of different
  // arguments stay apart (a multiplexed unit keeps each group whole).
  int groups = 0;
  for (const auto& e : request.events) {
    int last = -1;
    for (auto& p : syntax::parse_event_list(e)) {
      if (p.group >= 0) last = std::max(last, p.group), p.group += groups;
      run.specs.push_back(std::move(p));
    }
    groups += last + 1;
  }
  std::vector<events::PerfmonEvents> event_files;
  for (const auto& f : request.event_files) event_files.push_back(events::PerfmonEvents::load(f));
  run.spec_scales = apply_event_files(event_files, run.specs);
  machine.check_no_links(machine.param("sim.path") / "clock");  // mapped read-write by name
  run.time = sim::machine_clock(machine);
  run.found = discovery::discover(machine);
  if (!request.metrics.empty() || request.iio_scope != IioScope::None) run.catalog = metrics::Catalog::embedded();
  if (request.iio_scope != IioScope::None)
    run.metrics =
        add_iio_metric_events(machine, run.found, run.catalog, request.metrics, pmu_names(machine, run.found.inventory),
                              request.iio_scope, run.specs, run.warnings);
  else
    run.metrics = add_metric_events(run.catalog, request.metrics, pmu_names(machine, run.found.inventory), run.specs);
  if (std::all_of(run.specs.begin(), run.specs.end(), is_duration_time))
    throw UsageError("only duration_time given: add an event");
  run.backend = make_backend(machine, run.specs, run.found, request.backend, run.time, is_duration_time);
}

}  // namespace pmukit::tools
