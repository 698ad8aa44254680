// pmukit -- internal: the simulated Intel uncore PMON box (intel_model.cpp).
#pragma once

#include <memory>

#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

// nullptr when an MSR box has no CPU to reach it through.
std::unique_ptr<UnitModel> make_intel_model(const pmu::UnitLayout& layout, const Rates& rates);

}  // namespace pmukit::sim
