// pmukit -- a DesignWare RAS DES unit's registers (Linux dwc_pcie_pmu.c): two controls and two
// counters in the root port's config space, at the RAS DES VSEC.
#pragma once

#include "pmukit/pmu/unit_layout.h"

namespace pmukit::pmu {

enum class DwcRole : RoleId {
  LaneControl,  // EVENT_CNT_CTL: a command register, each write acts on the lane event it selects
  LaneCounter,  // EVENT_CNT_DATA (32-bit): the counter of the selected lane event
  TimeControl,  // TIME_BASED_ANAL_CTL
  TimeCounter,  // TIME_BASED_ANAL_DATA (64-bit, two config dwords)
};

UnitLayout designware_layout(const discovery::PmuUnit& unit);

}  // namespace pmukit::pmu
