// pmukit -- events bound to discovered units: a unit's PMU vocabulary (from platform data) and
// the binding of perf-syntax events to every unit their PMU name selects.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/syntax/event_spec.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit::platform {
class Database;
}

namespace pmukit::events {

// The formats and named events of a unit, as its kernel PMU would list them in sysfs.
syntax::PmuDescription describe_unit(const discovery::PmuUnit& unit, const platform::Database& db);

struct BoundEvent {
  std::size_t spec = 0;  // index of the syntax::EventSpec it came from
  const discovery::PmuUnit* unit = nullptr;
  syntax::EncodedEvent encoded;
};

// Binds specs one at a time, each unit described once for all of them: a caller that checks
// events in several groups (by PMU, then by unit) binds each event once.
class Binder {
 public:
  Binder(const discovery::Inventory& inventory, const platform::Database& db) : inventory_(inventory), db_(db) {}
  // Appends `spec` (the spec at `index` of the caller's list) bound to every unit its PMU selects
  // to `out`; throws as bind_events does. Nothing is appended when it throws.
  void bind(const syntax::EventSpec& spec, std::size_t index, std::vector<BoundEvent>& out);

 private:
  const discovery::Inventory& inventory_;
  const platform::Database& db_;
  std::map<std::string, syntax::PmuDescription> described_;  // by unit name; kinds repeat
};

// Binds every spec to each unit its PMU selects: an exact kernel PMU name ("uncore_imc_3",
// "nvidia_scf_pmu_0") or a type prefix that expands to all its units ("uncore_imc"). Throws
// UsageError naming the event: no such PMU here, a bare name without a PMU, an encoding error.
// Specs with an empty PMU that `keep_bare` accepts (duration_time) are left for the caller.
std::vector<BoundEvent> bind_events(const std::vector<syntax::EventSpec>& specs, const discovery::Inventory& inventory,
                                    const platform::Database& db,
                                    bool (*keep_bare)(const syntax::EventSpec&) = nullptr);

}  // namespace pmukit::events
