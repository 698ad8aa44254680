// pmukit -- the direct backend: registers programmed by pmukit's drivers.
#pragma once

#include <memory>
#include <vector>

#include "pmukit/counting/backend.h"
#include "pmukit/events/unit_events.h"
#include "pmukit/pmu/multiplex.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/sim/clock.h"

namespace pmukit::counting {

// One unit's events, all of them, how they take turns on its counters, and which set is on them.
struct UnitWork {
  const discovery::PmuUnit* unit = nullptr;
  std::vector<syntax::EncodedEvent> events;
  std::vector<std::size_t> spec_of;  // the spec each came from
  pmu::RotationPlan plan;
  bool planned = false;
  std::size_t on = 0;         // the set on the counters
  std::vector<int> position;  // position[e]: where event e is in that set, -1 while it is off
};

// Where each bound event is counted: its unit's work item and its place among the unit's events.
struct Slot {
  std::size_t work, event;
  events::BoundEvent bound;
  bool hardware_units = false;  // named through an alias counted in another kernel's units
};

struct DirectWork {
  std::vector<UnitWork> units;  // in order of first appearance among the bound events
  std::vector<Slot> slots;      // one per bound event, in their order
};

// The bound events (in -e order) as one work item per unit, its events in -e order, not yet planned.
DirectWork work_by_unit(const std::vector<syntax::EventSpec>& specs, const std::vector<events::BoundEvent>& bound);

// Plans a unit's events in sets that each fit its counters (pmu::plan_rotation), group members
// taking their leader's filters first; no hardware is touched.
void plan_unit(pmu::Preflight& preflight, const std::vector<syntax::EventSpec>& specs, UnitWork& w);

// Counts `work` through a DirectSession that adopts `preflight`: the units' mappings and saved
// registers from backend choice are the session's. Units not yet planned are planned here. A unit
// whose events need more counters than it has counts them in turn, the next set every
// `mux_interval_ns` of the clock, each event scaled by its enabled/running time as perf stat
// scales the kernel's multiplexed counts. Throws UsageError before any write when they cannot be
// counted even in turn (a {...} group larger than the counters), Error when a unit has no driver.
std::unique_ptr<Backend> make_direct_backend(std::unique_ptr<pmu::Preflight> preflight,
                                             const std::vector<syntax::EventSpec>& specs, DirectWork work, bool force,
                                             const sim::MachineClock& time, std::uint64_t mux_interval_ns);

// The group (-1: none) of each of a unit's events, for pmu::plan_rotation.
std::vector<int> groups_of(const std::vector<syntax::EventSpec>& specs, const std::vector<std::size_t>& spec_of);

}  // namespace pmukit::counting
