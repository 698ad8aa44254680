// pmu-raw -- event listing, grouped by PMU kind with the PMUs that have it.
#include "listing.h"

#include <map>
#include <set>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/counting/counting.h"
#include "pmukit/events/perfmon_json.h"
#include "pmukit/families/registry.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/text.h"

namespace pmukit::tools {

int list_events(const MachineArgs& machine_args, const std::vector<std::string>& event_files) {
  auto machine = make_machine(machine_args);
  auto found = families::discover(*machine);
  const auto& db = platform::Database::builtin();
  std::map<std::string, std::vector<std::string>> by_kind;  // kind -> PMU names, in order
  for (const auto& u : found.inventory.units) {
    auto& names = by_kind[u.pmu_kind];
    if (std::find(names.begin(), names.end(), u.name) == names.end()) names.push_back(u.name);
  }
  if (by_kind.empty()) fmt::print("No PMU units on {}.\n", machine->describe());
  for (const auto& [kind, names] : by_kind) {
    const auto* k = db.pmu_kind(kind);
    std::string who = names.size() <= 3
                          ? fmt::format("{}", fmt::join(names, ", "))
                          : fmt::format("{}, ... {} ({} PMUs)", names.front(), names.back(), names.size());
    fmt::print("{} [{}]\n", who, kind);
    if (!k) continue;
    std::string formats;
    for (const auto& [name, text] : k->formats) formats += fmt::format(" {}={}", name, text);
    fmt::print("  format:{}\n", formats);
    for (const auto& [name, alias] : k->events) {
      auto help = k->event_help.find(name);
      std::string extra = alias.unit.empty() ? "" : fmt::format(" (x{} {})", alias.scale, alias.unit);
      fmt::print("  {:<28} {}{}{}\n", name, alias.terms, extra,
                 help != k->event_help.end() && !help->second.empty() ? "  -- " + help->second : "");
    }
    fmt::print("\n");
  }
  std::map<std::string, bool> present;  // PMU type -> here; a file names a few types for its many events
  for (const auto& file : event_files) {
    auto loaded = events::PerfmonEvents::load(file);
    std::size_t elsewhere = 0;
    std::vector<const events::PerfmonEvent*> here;
    for (const auto& e : loaded.events()) {
      auto [it, fresh] = present.emplace(e.pmu_type, false);
      if (fresh)
        it->second = !found.inventory.find(e.pmu_type).empty() || !perf::find_pmus(*machine, e.pmu_type).empty();
      if (it->second)
        here.push_back(&e);
      else
        ++elsewhere;
    }
    fmt::print("{} (--event-file): {} event{} for PMUs here{}\n", file, here.size(), here.size() == 1 ? "" : "s",
               elsewhere ? fmt::format(", {} for PMUs this machine does not have", elsewhere) : "");
    for (const auto* e : here) {
      std::string extra = e->scale_unit.empty() ? "" : fmt::format(" (x{} {})", e->scale, e->scale_unit);
      fmt::print("  {:<28} {}/{}/{}{}\n", e->name, e->pmu_type, e->terms, extra,
                 e->description.empty() ? "" : "  -- " + e->description);
    }
    fmt::print("\n");
  }
  return 0;
}

int list_event_names(const MachineArgs& machine_args, const std::vector<std::string>& event_files) {
  auto machine = make_machine(machine_args);
  auto found = families::discover(*machine);
  const auto& db = platform::Database::builtin();
  std::set<std::string> lines;
  auto add = [&](const std::string& pmu, const std::map<std::string, syntax::EventAlias>& aliases) {
    lines.insert(pmu + "/");
    for (const auto& [name, alias] : aliases) lines.insert(pmu + "/" + name + "/");
  };
  const std::map<std::string, syntax::EventAlias> none;
  std::map<std::string, std::size_t> family_size;
  for (const auto& u : found.inventory.units) {
    const auto* k = db.pmu_kind(u.pmu_kind);
    add(u.name, k ? k->events : none);
    if (auto family = numbered_family(u.name); family && ++family_size[std::string(*family)] > 1)
      add(std::string(*family), k ? k->events : none);  // the merged name, as perf merges them
  }
  for (const auto& p : perf::list_pmus(*machine)) add(p.desc.name, p.desc.aliases);
  for (const auto& file : event_files) {
    auto loaded = events::PerfmonEvents::load(file);
    for (const auto& e : loaded.events())
      if (!found.inventory.find(e.pmu_type).empty() || !perf::find_pmus(*machine, e.pmu_type).empty())
        lines.insert(e.name);
  }
  for (const auto& line : lines) fmt::print("{}\n", line);
  return 0;
}

int list_metric_catalog(const MachineArgs& machine_args, bool all, bool names_only) {
  auto machine = make_machine(machine_args);
  auto found = families::discover(*machine);
  const auto pmus = counting::pmu_names(*machine, found.inventory);
  const auto catalog = metrics::Catalog::embedded();
  std::size_t shown = 0;
  for (const auto& m : catalog.metrics()) {
    std::vector<std::string> here;
    for (const auto& p : pmus)
      if (m.applies_to(p)) here.push_back(p);
    if (here.empty() && !all) continue;
    ++shown;
    if (names_only) {
      fmt::print("{}\n", m.name());
      continue;
    }
    std::string where = here.empty()       ? "no PMU here"
                        : here.size() <= 2 ? fmt::format("{}", fmt::join(here, ", "))
                                           : fmt::format("{}, ... ({} PMUs)", here.front(), here.size());
    fmt::print("{:<34} [{}] on {}: {}\n", m.name(), m.unit(), where, m.spec().description);
    fmt::print("{:<34} {}{}\n", "", m.spec().expression,
               m.spec().required_terms.empty() ? ""
                                               : fmt::format("  (needs {})", fmt::join(m.spec().required_terms, ", ")));
  }
  if (!shown && !names_only)
    fmt::print("No metric applies to the PMUs of this machine (--list-metrics --all shows them all).\n");
  return 0;
}

}  // namespace pmukit::tools
