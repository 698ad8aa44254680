// pmukit -- internal: the simulated DesignWare RAS DES counters (designware_model.cpp).
#pragma once

#include <memory>

#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

std::unique_ptr<UnitModel> make_dwc_model(const pmu::UnitLayout& layout, const Rates& rates);

}  // namespace pmukit::sim
