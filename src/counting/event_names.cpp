// pmukit -- every event name -e takes on a machine.
#include <algorithm>
#include <map>
#include <set>

#include "pmukit/counting/event_names.h"
#include "pmukit/events/builtin_events.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/text.h"

namespace pmukit::counting {

std::vector<std::string> event_names(const Machine& machine, const discovery::Inventory& inventory,
                                     const std::vector<std::string>& event_files) {
  const auto& db = platform::Database::builtin();
  std::set<std::string> names;
  auto add = [&](const std::string& pmu, const std::map<std::string, syntax::EventAlias>& aliases) {
    names.insert(pmu + "/");
    for (const auto& [name, alias] : aliases) names.insert(pmu + "/" + name + "/");
  };
  const std::map<std::string, syntax::EventAlias> none;
  std::map<std::string, std::size_t> family_size;
  for (const auto& u : inventory.units) {
    const auto* k = db.pmu_kind(u.pmu_kind);
    add(u.name, k ? k->events : none);
    if (auto family = numbered_family(u.name); family && ++family_size[std::string(*family)] > 1)
      add(std::string(*family), k ? k->events : none);  // the merged name, as perf merges them
  }
  for (const auto& p : perf::list_pmus(machine)) add(p.desc.name, p.desc.aliases);
  for (const auto& file : event_files) {
    auto loaded = events::PerfmonEvents::load(file);
    for (const auto* e : events_here(machine, inventory, loaded).here) names.insert(e->name);
  }
  if (const auto* builtin = events::builtin_uncore_events(inventory.platform))
    for (const auto* e : events_here(machine, inventory, *builtin).here) names.insert(to_lower(e->name));
  return {names.begin(), names.end()};
}

std::map<std::string, std::vector<std::string>> units_by_kind(const discovery::Inventory& inventory) {
  std::map<std::string, std::vector<std::string>> by_kind;
  for (const auto& u : inventory.units) {
    auto& names = by_kind[u.pmu_kind];
    if (std::find(names.begin(), names.end(), u.name) == names.end()) names.push_back(u.name);
  }
  return by_kind;
}

PmuKinds pmu_kinds_here(const discovery::Inventory& inventory) {
  const auto& db = platform::Database::builtin();
  PmuKinds kinds;
  std::map<std::string, const platform::PmuKind*> family;  // nullptr once two kinds share the name
  for (const auto& u : inventory.units) {
    const auto* k = db.pmu_kind(u.pmu_kind);
    if (!k) continue;
    kinds[u.name] = k;  // not its aliases: another kernel's names (pcie_bdf_200) come with that kernel's events
    if (auto f = numbered_family(u.name)) {
      auto [it, added] = family.try_emplace(std::string(*f), k);
      if (!added && it->second != k) it->second = nullptr;
    }
  }
  for (const auto& [name, k] : family)
    if (k) kinds.try_emplace(name, k);
  return kinds;
}

const platform::PmuKind* kind_of(const PmuKinds& kinds, std::string_view pmu) {
  auto it = kinds.find(pmu);
  return it == kinds.end() ? nullptr : it->second;
}

EventsHere events_here(const Machine& machine, const discovery::Inventory& inventory,
                       const events::PerfmonEvents& file) {
  EventsHere out;
  std::map<std::string, bool> present;  // PMU type -> here; a file names a few types for its many events
  for (const auto& e : file.events()) {
    auto [it, fresh] = present.emplace(e.pmu_type, false);
    if (fresh) it->second = !inventory.find(e.pmu_type).empty() || !perf::find_pmus(machine, e.pmu_type).empty();
    if (it->second)
      out.here.push_back(&e);
    else
      ++out.elsewhere;
  }
  return out;
}

}  // namespace pmukit::counting
