// pmukit -- internal: the CoreSight PMU driver (coresight_driver.cpp).
#pragma once

#include <memory>

#include "pmukit/pmu/driver.h"

namespace pmukit::pmu {

// Programs through the PMU kind's register assembly (platform data), or Arm's default.
std::unique_ptr<UnitDriver> make_coresight(const UnitLayout& layout, const platform::Database& db);

}  // namespace pmukit::pmu
