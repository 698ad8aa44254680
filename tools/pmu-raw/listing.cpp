// pmu-raw -- event listing, grouped by PMU kind with the PMUs that have it.
#include "listing.h"

#include <map>
#include <set>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/discovery/discover.h"
#include "pmukit/platform/database.h"

namespace pmukit::tools {

int list_events(const MachineArgs& machine_args) {
  auto machine = make_machine(machine_args);
  auto found = discovery::discover(*machine);
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
  return 0;
}

}  // namespace pmukit::tools
