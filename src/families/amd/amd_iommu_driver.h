// pmukit -- internal: the AMD IOMMU counter driver (amd_iommu_driver.cpp).
#pragma once

#include <memory>

#include "pmukit/pmu/driver.h"

namespace pmukit::pmu {

// Throws Error when the unit's counters are not usable (the reason discovery noted).
std::unique_ptr<UnitDriver> make_amd_iommu(const UnitLayout& layout);

}  // namespace pmukit::pmu
