// pmukit -- internal: the family drivers make_driver() chooses from.
#pragma once

#include <memory>

#include "pmukit/platform/database.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

std::unique_ptr<UnitDriver> make_intel_box(const UnitLayout& layout, const platform::Database& db);
std::unique_ptr<UnitDriver> make_coresight(const UnitLayout& layout, const platform::Database& db);
std::unique_ptr<UnitDriver> make_dwc_rasdes(const UnitLayout& layout);
std::unique_ptr<UnitDriver> make_t410_block(const UnitLayout& layout);
std::unique_ptr<UnitDriver> make_cmn(const UnitLayout& layout, const platform::Database& db);

// Arm CMN: the DTCs' and DTMs' registers and the nodes' event selects (cmn_layout.cpp).
UnitLayout cmn_layout(const discovery::PmuUnit& unit, const platform::Database& db);

}  // namespace pmukit::pmu
