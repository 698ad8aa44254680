// pmukit -- internal: the simulated CoreSight PMU (coresight_model.cpp).
#pragma once

#include <memory>

#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

std::unique_ptr<UnitModel> make_coresight_model(const pmu::UnitLayout& layout, const Rates& rates);

}  // namespace pmukit::sim
