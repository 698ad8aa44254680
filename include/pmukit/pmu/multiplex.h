// pmukit -- time-division multiplexing: which of a unit's events are counted together, in turn.
//
// When a unit's events need more counters than it has, they are split into sets that each fit,
// and the sets take turns on the counters (the direct backend rotates them; the kernel's perf core
// does the same with its event groups). A {...} group is never split: it is counted whole or not
// at all, so a group that does not fit the counters alone is an error, as perf refuses it.
#pragma once

#include <vector>

#include "pmukit/pmu/verdict.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit::discovery {
struct PmuUnit;
}

namespace pmukit::pmu {

class Preflight;

struct RotationPlan {
  Verdict verdict;  // Ok, or why the events cannot be counted on this unit even in turn
  // Indices into the events, ascending within a set; one set when all fit at once.
  std::vector<std::vector<std::size_t>> sets;
  bool multiplexed() const { return sets.size() > 1; }
};

// Plans `events` (on `unit`) in sets that each fit its counters. group[i] is the {...} group of
// event i (-1: alone). Groups are placed whole, in order of first appearance, into the first set
// they fit (first fit keeps the sets few, so each event is counted as much of the time as it can).
// Only a shortage of counters is spread over sets: any other refusal (an encoding, a filter, a
// rule of the kernel driver) is the plan's verdict. No hardware is touched.
RotationPlan plan_rotation(Preflight& preflight, const discovery::PmuUnit& unit,
                           const std::vector<syntax::EncodedEvent>& events, const std::vector<int>& group);

// Before planning: group members that leave a filter unset take their leader's where the unit's
// Linux driver does so (UnitDriver::inherit_group_filters), so they are checked and programmed
// with the filter the kernel would give them.
void inherit_group_filters(Preflight& preflight, const discovery::PmuUnit& unit,
                           std::vector<syntax::EncodedEvent>& events, const std::vector<int>& group);

// The events of `set`, in order.
std::vector<syntax::EncodedEvent> events_of(const std::vector<syntax::EncodedEvent>& events,
                                            const std::vector<std::size_t>& set);

}  // namespace pmukit::pmu
