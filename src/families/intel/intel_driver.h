// pmukit -- internal: the Intel uncore PMON box driver (intel_driver.cpp).
#pragma once

#include <memory>

#include "pmukit/pmu/driver.h"

namespace pmukit::pmu {

// Throws Error when an MSR box has no CPU to reach it through.
std::unique_ptr<UnitDriver> make_intel_box(const UnitLayout& layout, const platform::Database& db);

}  // namespace pmukit::pmu
