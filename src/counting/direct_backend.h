// pmukit tools -- the direct backend: registers programmed by pmukit's drivers.
#pragma once

#include "common/backend.h"
#include "pmukit/events/unit_events.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/sim/clock.h"

namespace pmukit::tools {

// Counts `bound` (events already bound to units) through a DirectSession that adopts `preflight`:
// the units' mappings and saved registers from backend choice are the session's. A unit whose
// events need more counters than it has counts them in turn (pmu::plan_rotation), the next set
// every `mux_interval_ns` of the clock, each event scaled by its enabled/running time as perf
// stat scales the kernel's multiplexed counts. Throws UsageError before any write when they
// cannot be counted even in turn (a {...} group larger than the counters).
std::unique_ptr<Backend> make_direct_backend(std::unique_ptr<pmu::Preflight> preflight,
                                             const std::vector<syntax::EventSpec>& specs,
                                             const std::vector<events::BoundEvent>& bound, bool force,
                                             const sim::MachineClock& time, std::uint64_t mux_interval_ns);

// The group (-1: none) of each of a unit's events, for pmu::plan_rotation.
std::vector<int> groups_of(const std::vector<syntax::EventSpec>& specs, const std::vector<std::size_t>& spec_of);

}  // namespace pmukit::tools
