// pmukit -- what the pmu layer needs of a PMU family (discovery/family.h): each unit's register
// layout and a driver that programs it. The family's one object implements this beside
// discovery::Family; make_layout() and make_driver() reach it through the unit's family.
#pragma once

#include <memory>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/pmu/unit_layout.h"

namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

class FamilyDriver {
 public:
  virtual ~FamilyDriver() = default;
  // Every register of the unit with its role, address, width and access (unit_layout.h). Never
  // throws; a unit whose registers cannot be located gets a layout without them.
  virtual UnitLayout layout(const discovery::PmuUnit& unit, const platform::Database& db) const = 0;
  // The driver for a unit laid out by layout(); throws Error with the reason it cannot program it.
  virtual std::unique_ptr<UnitDriver> driver(const UnitLayout& layout, const platform::Database& db) const = 0;
  // Whether a counter reads as zero above the unit's counter_width (Intel's discovery table and
  // CoreSight's PMCFGR.SIZE give the width): recovery then knows a saved value with a bit there
  // is not one a read returned.
  virtual bool counters_zero_above_width() const { return false; }
};

// The unit's family as the pmu layer sees it; null when the family programs no units.
const FamilyDriver* family_driver(const discovery::PmuUnit& unit);

}  // namespace pmukit::pmu
