// pmukit -- an AMD uncore unit's registers: a control and a count MSR per counter, on the CPU that
// reaches the unit.
#pragma once

#include "pmukit/pmu/unit_layout.h"

namespace pmukit::pmu {

enum class AmdRole : RoleId {
  Control,  // PERF_CTL i
  Counter,  // PERF_CTR i
};

UnitLayout amd_layout(const discovery::PmuUnit& unit);

}  // namespace pmukit::pmu
