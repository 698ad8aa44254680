// pmukit -- a Tegra410 block's registers outside CoreSight (Linux nvidia_t410_c2c_pmu.c,
// nvidia_t410_cmem_latency_pmu.c): controls in the broadcast region, counters per instance.
#pragma once

#include "pmukit/pmu/unit_layout.h"

namespace pmukit::pmu {

enum class T410Role : RoleId {
  PmuControl,          // the broadcast CTRL
  Counter,             // C2C: the counter of event `index` in instance `instance`
  ClockControl,        // CMEM: the broadcast clock gate
  CycleCounter,        // CMEM: an instance's cycle counter
  RequestCounter,      // CMEM: MCi_REQ of an instance
  OutstandingCounter,  // CMEM: MCi_AOR of an instance
};

// Empty when the regions are not visible to userspace (the driver then says why).
UnitLayout tegra410_layout(const discovery::PmuUnit& unit);

}  // namespace pmukit::pmu
