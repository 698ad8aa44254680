// pmukit tools -- the direct backend: registers programmed by pmukit's drivers.
#pragma once

#include "common/backend.h"
#include "pmukit/events/unit_events.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/sim/clock.h"

namespace pmukit::tools {

// Counts `bound` (events already bound to units) through a DirectSession that adopts `preflight`:
// the units' mappings and saved registers from backend choice are the session's.
std::unique_ptr<Backend> make_direct_backend(std::unique_ptr<pmu::Preflight> preflight,
                                             const std::vector<syntax::EventSpec>& specs,
                                             const std::vector<events::BoundEvent>& bound, bool force,
                                             const sim::MachineClock& time);

}  // namespace pmukit::tools
