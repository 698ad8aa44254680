// pmukit -- internal: the simulated Arm CMN mesh (cmn_model.cpp).
#pragma once

#include <memory>

#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

std::unique_ptr<UnitModel> make_cmn_model(const pmu::UnitLayout& layout, const Rates& rates);

}  // namespace pmukit::sim
