// pmukit -- what the pmu layer needs of a PMU family (discovery/family.h): each unit's register
// layout and a driver that programs it. The family's one object implements this beside
// discovery::Family; make_layout() and make_driver() reach it through the unit's family.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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
  // Why no read of register `r` could have returned `value` ("" when one could): recovery refuses
  // to put back a journalled original that no run can have saved.
  virtual std::string implausible_original(const UnitLayout& layout, const UnitRegister& r, std::uint64_t value) const {
    (void)layout, (void)r, (void)value;
    return "";
  }
};

// The unit's family as the pmu layer sees it; null when the family programs no units.
const FamilyDriver* family_driver(const discovery::PmuUnit& unit);

// "a 48-bit counter" when `value` has a bit above the unit's counter_width, "" otherwise: for
// families whose counters read as zero there (Intel's discovery table and CoreSight's PMCFGR.SIZE
// give the width).
std::string above_counter_width(const discovery::PmuUnit& unit, std::uint64_t value);

}  // namespace pmukit::pmu
