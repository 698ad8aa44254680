// pmukit -- a CoreSight PMU's registers (ARM IHI 0091; Linux arm_cspmu.c): the architected
// controls, counters and enable/overflow banks, and the implementation-defined filter registers
// its PMU kind names.
#pragma once

#include "pmukit/pmu/unit_layout.h"

namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

enum class CoreSightRole : RoleId {
  PmuControl,     // PMCR
  EventType,      // PMEVTYPER<n>
  EventFilter,    // PMEVFILTR<n>
  EventFilter2,   // PMEVFILT2R<n>
  Counter,        // PMEVCNTR<n>
  CycleFilter,    // PMCCFILTR
  CycleCounter,   // counter 31
  EnableSet,      // PMCNTENSET<b>, bank b of 32 counters
  EnableClear,    // PMCNTENCLR<b>
  OverflowClear,  // PMOVSCLR<b> (page 1)
  AuxFilter,      // implementation-defined registers all counters share (platform data)
};

UnitLayout coresight_layout(const discovery::PmuUnit& unit, const platform::Database& db);

}  // namespace pmukit::pmu
