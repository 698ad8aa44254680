// pmukit -- internal: the simulated Tegra410 C2C and CMEM latency blocks (tegra410_model.cpp).
#pragma once

#include <memory>

#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

// nullptr when the block's regions are not visible (nothing to model).
std::unique_ptr<UnitModel> make_t410_model(const pmu::UnitLayout& layout, const Rates& rates);

}  // namespace pmukit::sim
