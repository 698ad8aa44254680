// pmukit -- an Intel uncore PMON box's registers (Linux uncore_discovery.c
// uncore_update_uncore_type): a box control, counter controls and counters in the box's address
// space, and what platform data adds (a fixed counter, a filter register).
#pragma once

#include "pmukit/pmu/unit_layout.h"

namespace pmukit::pmu {

enum class IntelRole : RoleId {
  BoxControl,      // the box control (freeze, resets)
  CounterControl,  // ctl[i]
  Counter,         // ctr[i]
  FixedControl,    // the fixed counter's control (IMC DRAM clocks)
  FixedCounter,    // the fixed counter
  Filter,          // the box filter register (CHA TID filter)
};

UnitLayout intel_layout(const discovery::PmuUnit& unit);

}  // namespace pmukit::pmu
