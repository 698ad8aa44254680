// pmukit -- an AMD IOMMU's counter registers (Linux arch/x86/events/amd/iommu.h): five per
// counter of each bank, in the counter-bank region at MMIO base + 0x40000.
#pragma once

#include "pmukit/pmu/unit_layout.h"

namespace pmukit::pmu {

enum class AmdIommuRole : RoleId {
  Counter,     // IOMMU_PC_COUNTER_REG (48 bits)
  Source,      // IOMMU_PC_COUNTER_SRC_REG: the event counted; 0 stops the counter
  PasidMatch,  // IOMMU_PC_PASID_MATCH_REG
  DomidMatch,  // IOMMU_PC_DOMID_MATCH_REG
  DevidMatch,  // IOMMU_PC_DEVID_MATCH_REG
};

// A counter's index in its role: bank * counters per bank + counter.
// Empty when the unit's counters are not usable (region not proven, PCSup clear, no banks).
UnitLayout amd_iommu_layout(const discovery::PmuUnit& unit);

}  // namespace pmukit::pmu
