// pmukit -- the AMD IOMMU family: the IOMMU performance counters (Linux arch/x86/events/amd/
// iommu.c, PMUs amd_iommu_<n>), their layout, driver, simulator model and machine-spec section.
#pragma once

#include "pmukit/discovery/family.h"

namespace pmukit::families {

const discovery::Family& amd_iommu_family();

}  // namespace pmukit::families
