// pmukit -- internal: the DesignWare RAS DES driver (designware_driver.cpp).
#pragma once

#include <memory>

#include "pmukit/pmu/driver.h"

namespace pmukit::pmu {

std::unique_ptr<UnitDriver> make_dwc_rasdes(const UnitLayout& layout);

}  // namespace pmukit::pmu
