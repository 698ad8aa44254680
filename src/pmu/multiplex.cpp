// pmukit -- planning the sets a unit's events are multiplexed in.
#include "pmukit/pmu/multiplex.h"

#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/preflight.h"

namespace pmukit::pmu {

namespace {

bool counters_short(const Verdict& v) {
  const auto* d = std::get_if<DoesNotFit>(&v);
  return d && d->counters_short;
}

// The {...} groups, and each event alone, in order of first appearance.
std::vector<std::vector<std::size_t>> placement_units(const std::vector<int>& group, std::size_t n) {
  std::vector<std::vector<std::size_t>> units;
  std::map<int, std::size_t> at;
  for (std::size_t i = 0; i < n; ++i) {
    const int g = i < group.size() ? group[i] : -1;
    if (g < 0) {
      units.push_back({i});
      continue;
    }
    auto [it, fresh] = at.emplace(g, units.size());
    if (fresh) units.emplace_back();
    units[it->second].push_back(i);
  }
  return units;
}

// A group that does not fit on its own: the kernel refuses it too, when the event is opened (Linux
// arm_cspmu.c arm_cspmu_validate_group, intel/uncore.c uncore_validate_group), so no backend
// counts it: a kernel rule.
DoesNotFit group_too_large(const discovery::PmuUnit& unit, const std::vector<syntax::EncodedEvent>& events,
                           const std::vector<std::size_t>& members, const DoesNotFit& why) {
  std::vector<std::string> names;
  for (auto i : members) names.push_back(events[i].name);
  return DoesNotFit{
      fmt::format("{}: the group {{{}}} does not fit the counters ({})", unit.name, fmt::join(names, ","), why.reason),
      "a {...} group is counted whole, never in turn: split it, or drop the braces to let its events "
      "be multiplexed",
      true};
}

}  // namespace

void inherit_group_filters(Preflight& preflight, const discovery::PmuUnit& unit,
                           std::vector<syntax::EncodedEvent>& events, const std::vector<int>& group) {
  if (auto* driver = preflight.driver(unit)) driver->inherit_group_filters(events, group);
}

std::vector<syntax::EncodedEvent> events_of(const std::vector<syntax::EncodedEvent>& events,
                                            const std::vector<std::size_t>& set) {
  std::vector<syntax::EncodedEvent> out;
  out.reserve(set.size());
  for (auto i : set) out.push_back(events.at(i));
  return out;
}

RotationPlan plan_rotation(Preflight& preflight, const discovery::PmuUnit& unit,
                           const std::vector<syntax::EncodedEvent>& events, const std::vector<int>& group) {
  RotationPlan plan{preflight.fit(unit, events), {}};
  if (ok(plan.verdict)) {
    plan.sets.emplace_back(events.size());
    std::iota(plan.sets.back().begin(), plan.sets.back().end(), std::size_t{0});
    return plan;
  }
  if (!counters_short(plan.verdict)) return plan;
  for (const auto& members : placement_units(group, events.size())) {
    auto alone = preflight.fit(unit, events_of(events, members));
    if (counters_short(alone)) return {group_too_large(unit, events, members, std::get<DoesNotFit>(alone)), {}};
    if (!ok(alone)) return {alone, {}};
    bool placed = false;
    for (auto& set : plan.sets) {
      auto together = set;
      together.insert(together.end(), members.begin(), members.end());
      std::sort(together.begin(), together.end());
      auto v = preflight.fit(unit, events_of(events, together));
      if (ok(v)) {
        set = std::move(together), placed = true;
        break;
      }
      if (!counters_short(v)) return {v, {}};
    }
    if (!placed) plan.sets.push_back(members);
  }
  plan.verdict = Ok{};
  return plan;
}

}  // namespace pmukit::pmu
