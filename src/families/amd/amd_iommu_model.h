// pmukit -- internal: the simulated AMD IOMMU counters (amd_iommu_model.cpp).
#pragma once

#include <memory>

#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

// nullptr when the unit's counters are not usable (nothing to model).
std::unique_ptr<UnitModel> make_amd_iommu_model(const pmu::UnitLayout& layout, const Rates& rates);

}  // namespace pmukit::sim
