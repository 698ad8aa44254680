// pmu-raw -- --list-events: the named events of each PMU on this machine.
#pragma once

#include "common/tool.h"

namespace pmukit::tools {

int list_events(const MachineArgs& machine_args);

}  // namespace pmukit::tools
