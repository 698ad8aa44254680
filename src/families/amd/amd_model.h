// pmukit -- internal: the simulated AMD L3, Data Fabric and UMC counters (amd_model.cpp).
#pragma once

#include <memory>

#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

std::unique_ptr<UnitModel> make_amd_model(const pmu::UnitLayout& layout, const Rates& rates);

}  // namespace pmukit::sim
