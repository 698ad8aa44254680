// pmukit -- internal: the Tegra410 C2C and CMEM latency driver (tegra410_driver.cpp).
#pragma once

#include <memory>

#include "pmukit/pmu/driver.h"

namespace pmukit::pmu {

// Throws Error when the block's regions are not visible (the layout has no registers).
std::unique_ptr<UnitDriver> make_t410_block(const UnitLayout& layout);

}  // namespace pmukit::pmu
