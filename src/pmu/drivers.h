// pmukit -- internal: the family drivers make_driver() chooses from.
#pragma once

#include <memory>

#include "pmukit/platform/database.h"
#include "pmukit/pmu/driver.h"

namespace pmukit::pmu {

std::unique_ptr<UnitDriver> make_intel_box(const discovery::PmuUnit& unit);
std::unique_ptr<UnitDriver> make_coresight(const discovery::PmuUnit& unit, const platform::Database& db);
std::unique_ptr<UnitDriver> make_dwc_rasdes(const discovery::PmuUnit& unit);
std::unique_ptr<UnitDriver> make_t410_block(const discovery::PmuUnit& unit);

}  // namespace pmukit::pmu
