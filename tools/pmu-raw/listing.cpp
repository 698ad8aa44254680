// pmu-raw -- event listing, grouped by PMU kind with the PMUs that have it.
#include "listing.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/counting/counting.h"
#include "pmukit/counting/event_names.h"
#include "pmukit/events/builtin_events.h"
#include "pmukit/events/perfmon_json.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/text.h"

namespace pmukit::tools {

namespace {

// The uncore events perf knows on this CPU model, as perf list shows them: by topic ("uncore
// memory:"), each name in lower case with its description and PMU, then its encoding (perf list
// --details). Deprecated events are left out, as perf list leaves them out.
void list_builtin_events(const Machine& machine, const discovery::Inventory& inventory) {
  const auto* builtin = events::builtin_uncore_events(inventory.platform);
  if (!builtin) return;
  const auto [here, elsewhere] = counting::events_here(machine, inventory, *builtin);
  std::map<std::string, std::map<std::string, const events::PerfmonEvent*>> by_topic;
  std::size_t deprecated = 0;
  for (const auto* e : here) {
    if (e->deprecated) {
      ++deprecated;
      continue;
    }
    by_topic[e->topic.empty() ? "uncore" : e->topic].emplace(to_lower(e->name), e);
  }
  fmt::print("Uncore events perf knows on {} (Intel perfmon, perf's names; -e NAME or -e PMU/NAME/): {} for PMUs "
             "here{}{}\n",
             inventory.platform, here.size() - deprecated,
             elsewhere ? fmt::format(", {} for PMUs this machine does not have", elsewhere) : "",
             deprecated ? fmt::format(", {} deprecated not shown", deprecated) : "");
  for (const auto& [topic, list] : by_topic) {
    fmt::print("\n{}:\n", topic);
    for (const auto& [name, e] : list) {
      std::string_view text = e->description;
      while (text.ends_with('.') || text.ends_with(' ')) text.remove_suffix(1);
      fmt::print("  {}\n       [{}. Unit: {}]\n       {}/{}/\n", name, text, e->pmu_type, e->pmu_type, e->terms);
    }
  }
  fmt::print("\n");
}

}  // namespace

int list_events(const MachineArgs& machine_args, const std::vector<std::string>& event_files) {
  auto machine = make_machine(machine_args);
  auto found = families::discover(*machine);
  const auto& db = platform::Database::builtin();
  const auto by_kind = counting::units_by_kind(found.inventory);
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
  list_builtin_events(*machine, found.inventory);
  for (const auto& file : event_files) {
    auto loaded = events::PerfmonEvents::load(file);
    const auto [here, elsewhere] = counting::events_here(*machine, found.inventory, loaded);
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
  for (const auto& name : counting::event_names(*machine, found.inventory, event_files)) fmt::print("{}\n", name);
  return 0;
}

namespace {

// The groups --list-metrics shows a metric under: perf's MetricGroup (several, ';'-separated, and
// "No_group" for perf's metrics without one, as perf list shows them), or pmukit's family.
std::vector<std::string> groups_of(const metrics::Metric& m) {
  std::vector<std::string> out;
  if (m.spec().metric_group.empty()) return {m.spec().family};
  for (auto g : split(m.spec().metric_group, ';'))
    if (!g.empty()) out.emplace_back(g);
  return out;
}

void print_metric(const metrics::Metric& m, const std::vector<std::string>& here) {
  std::string where = here.empty()       ? "no PMU here"
                      : here.size() <= 2 ? fmt::format("{}", fmt::join(here, ", "))
                                         : fmt::format("{}, ... ({} PMUs)", here.front(), here.size());
  fmt::print("  {:<34} [{}] on {}: {}\n", m.name(), m.unit(), where, m.spec().description);
  fmt::print("  {:<34} {}{}\n", "", m.spec().expression,
             m.spec().required_terms.empty() ? ""
                                             : fmt::format("  (needs {})", fmt::join(m.spec().required_terms, ", ")));
}

// perf's metrics for this platform (every platform with --all) that pmukit does not count, and why.
void print_unavailable(const metrics::Catalog& catalog, const std::string& platform, bool all) {
  bool first = true;
  for (const auto& u : catalog.unavailable()) {
    if (!all && std::find(u.platforms.begin(), u.platforms.end(), platform) == u.platforms.end()) continue;
    if (first) fmt::print("\nNot counted by pmukit (perf's metrics{}):\n", all ? "" : " for " + platform);
    first = false;
    fmt::print("  {:<34} [{}]: {}\n", u.name, fmt::join(u.platforms, ", "), u.description);
    fmt::print("  {:<34} {}\n", "", u.reason);
  }
}

}  // namespace

// As perf list shows metrics: under each metric group (sorted), the metrics of the group.
int list_metric_catalog(const MachineArgs& machine_args, bool all, bool names_only) {
  auto machine = make_machine(machine_args);
  auto found = families::discover(*machine);
  const auto pmus = counting::pmu_names(*machine, found.inventory);
  const auto kinds = counting::pmu_kinds_here(found.inventory);
  const auto catalog = metrics::Catalog::embedded();
  std::map<std::string, std::vector<std::pair<const metrics::Metric*, std::vector<std::string>>>> by_group;
  std::vector<std::string> names;
  for (const auto& m : catalog.metrics()) {
    std::vector<std::string> here;
    for (const auto& p : pmus)
      if (m.applies_to(p, counting::kind_of(kinds, p), found.inventory.platform)) here.push_back(p);
    for (const auto& other : m.other_pmus())  // and the PMUs its other variables count on (uncore_m2m)
      if (!here.empty()) {
        if (std::find(pmus.begin(), pmus.end(), other) == pmus.end()) here.clear();
        if (!here.empty()) here.front() += " + " + other;
      }
    if (here.empty() && !all) continue;
    if (std::find(names.begin(), names.end(), m.name()) == names.end()) names.push_back(m.name());
    for (const auto& g : groups_of(m)) by_group[g].emplace_back(&m, here);
  }
  if (names_only) {
    for (const auto& n : names) fmt::print("{}\n", n);
    return 0;
  }
  if (names.empty())
    fmt::print("No metric applies to the PMUs of this machine (--list-metrics --all shows them all).\n");
  for (const auto& [group, members] : by_group) {
    fmt::print("{}{}:\n", group == by_group.begin()->first ? "" : "\n", group);
    for (const auto& [m, here] : members) print_metric(*m, here);
  }
  print_unavailable(catalog, found.inventory.platform, all);
  return 0;
}

}  // namespace pmukit::tools
