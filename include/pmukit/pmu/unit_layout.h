// pmukit -- a unit's registers, built once per discovered unit: every register with its role, where
// it is, how wide it is and how it is read and written, and the MMIO blocks that hold them.
//
// The layout is the one place the family's register map (include/pmukit/regs/) meets a
// discovered unit's addresses. The driver programs it, the session saves and restores what it
// owns, the simulator models it and pmu-discover shows it; none of them computes an address.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/register_io.h"

namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

enum class Role : std::uint8_t {
  BoxControl,      // Intel: the box control (freeze, resets)
  CounterControl,  // Intel: ctl[i]
  Counter,         // counter i (Intel ctr[i], CoreSight PMEVCNTR<n>, Tegra410 C2C: the counter of event i,
                   // CMN: global counter i of the DTC of domain `instance`)
  FixedControl,    // Intel: the fixed counter's control (IMC DRAM clocks)
  FixedCounter,    // Intel: the fixed counter
  Filter,          // Intel: the box filter register (CHA TID filter)
  PmuControl,      // CoreSight PMCR; Tegra410: the broadcast CTRL; CMN: PMCR of DTC domain `index`
  EventType,       // CoreSight PMEVTYPER<n>
  EventFilter,     // CoreSight PMEVFILTR<n>
  EventFilter2,    // CoreSight PMEVFILT2R<n>
  CycleFilter,     // CoreSight PMCCFILTR
  CycleCounter,    // CoreSight counter 31; Tegra410 CMEM cycle counter of an instance; CMN: PMCCNTR of domain `index`
  EnableSet,       // CoreSight PMCNTENSET<b>, bank b of 32 counters
  EnableClear,     // CoreSight PMCNTENCLR<b>
  OverflowClear,   // CoreSight PMOVSCLR<b> (page 1)
  AuxFilter,       // CoreSight implementation-defined registers all counters share (platform data)
  LaneControl,     // DesignWare EVENT_CNT_CTL
  LaneCounter,     // DesignWare EVENT_CNT_DATA (32-bit)
  TimeControl,     // DesignWare TIME_BASED_ANAL_CTL
  TimeCounter,     // DesignWare TIME_BASED_ANAL_DATA (64-bit, two config dwords)
  ClockControl,    // Tegra410 CMEM: the broadcast clock gate
  RequestCounter,  // Tegra410 CMEM: MCi_REQ of an instance
  OutstandingCounter,  // Tegra410 CMEM: MCi_AOR of an instance
  DtmConfig,           // Arm CMN: por_dtm_pmu_config of DTM `index` (CmnUnit::dtms)
  DtmCounter,          // Arm CMN: por_dtm_pmevcnt, the DTM's four 16-bit local counters
  EventSelect,         // Arm CMN: pmu_event_sel of node `index` (CmnUnit::nodes); instance 1: its second part
  DtcControl,          // Arm CMN: DTC_CTL of DTC domain `index`
};
std::string_view role_name(Role role);  // "counter control", "PMCNTENSET", ...

struct UnitRegister {
  Role role = Role::Counter;
  std::uint16_t index = 0;     // counter, bank, event or memory controller number within the role
  std::uint16_t instance = 0;  // Tegra410: the instance whose region holds it
  Reg reg;
  bool owned = true;     // saved before the first write and restored; false: only ever read
  bool command = false;  // each write is an action on what it selects (WriteGuard::commands)
};

struct MmioBlock {
  std::uint64_t base = 0;
  std::uint64_t size = 0;
};

struct UnitLayout {
  const discovery::PmuUnit* unit = nullptr;
  std::vector<UnitRegister> registers;  // in the order they are saved and put back
  std::vector<MmioBlock> blocks;        // what must be mapped to reach the MMIO ones

  const UnitRegister* find(Role role, unsigned index = 0, unsigned instance = 0) const;
  // Throws Error naming the unit and the role when the layout has no such register.
  const Reg& at(Role role, unsigned index = 0, unsigned instance = 0) const;
  std::size_t count(Role role) const;
  std::vector<unsigned> indices(Role role) const;  // the indices present, in layout order (instance 0)
  std::vector<Reg> owned() const;
  std::vector<Reg> commands() const;
};

// The layout of one discovered unit. Never throws: a unit whose registers cannot be located here
// (Tegra410 regions userspace cannot see) gets a layout without them, and make_driver says why.
UnitLayout make_layout(const discovery::PmuUnit& unit, const platform::Database& db);

}  // namespace pmukit::pmu
