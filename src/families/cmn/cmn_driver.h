// pmukit -- internal: the Arm CMN driver (cmn_driver.cpp).
#pragma once

#include <memory>

#include "pmukit/pmu/driver.h"

namespace pmukit::pmu {

// Throws Error when the kernel's arm-cmn driver holds the mesh, or the walk found nothing to count.
std::unique_ptr<UnitDriver> make_cmn(const UnitLayout& layout, const platform::Database& db);

}  // namespace pmukit::pmu
