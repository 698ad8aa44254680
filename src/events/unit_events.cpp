// pmukit -- unit vocabularies and event binding.
#include "pmukit/events/unit_events.h"

#include <map>

#include <fmt/format.h>

#include "pmukit/platform/database.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"

namespace pmukit::events {

syntax::PmuDescription describe_unit(const discovery::PmuUnit& unit, const platform::Database& db) {
  syntax::PmuDescription d;
  d.name = unit.name;
  const platform::PmuKind* kind = db.pmu_kind(unit.pmu_kind);
  if (!kind) throw Error(fmt::format("{}: platform data has no PMU kind '{}'", unit.name, unit.pmu_kind));
  for (const auto& [name, text] : kind->formats) d.formats[name] = syntax::parse_format(name, text);
  d.aliases = kind->events;
  return d;
}

void Binder::bind(const syntax::EventSpec& spec, std::size_t index, std::vector<BoundEvent>& out) {
  if (spec.pmu.empty())
    throw UsageError(fmt::format("event '{}': name the PMU that counts it, as pmu/{}/ (pmu-raw --list-events "
                                 "lists them)",
                                 spec.text, spec.text));
  auto units = inventory_.find(spec.pmu);
  if (units.empty())
    throw UsageError(
        fmt::format("event '{}': no PMU '{}' on this machine (pmu-discover lists the PMU names)", spec.text, spec.pmu));
  const std::size_t before = out.size();
  try {
    for (const auto* unit : units) {
      auto it = described_.find(unit->name);
      if (it == described_.end()) it = described_.emplace(unit->name, describe_unit(*unit, db_)).first;
      out.push_back(BoundEvent{index, unit, syntax::encode(spec, it->second)});
    }
  } catch (...) {
    out.resize(before);
    throw;
  }
}

std::vector<BoundEvent> bind_events(const std::vector<syntax::EventSpec>& specs, const discovery::Inventory& inventory,
                                    const platform::Database& db, bool (*keep_bare)(const syntax::EventSpec&)) {
  std::vector<BoundEvent> out;
  Binder binder(inventory, db);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].pmu.empty() && keep_bare && keep_bare(specs[i])) continue;
    binder.bind(specs[i], i, out);
  }
  return out;
}

}  // namespace pmukit::events
