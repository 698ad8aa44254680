// pmu-raw -- the direct backend: registers programmed by pmukit's drivers.
#pragma once

#include "backend.h"
#include "pmukit/events/unit_events.h"

namespace pmukit::sim {
class Clock;
}

namespace pmukit::tools {

std::unique_ptr<Backend> make_direct_backend(Machine& machine, const std::vector<events::EventSpec>& specs,
                                             const std::vector<events::BoundEvent>& bound, bool force,
                                             sim::Clock& clock);

}  // namespace pmukit::tools
