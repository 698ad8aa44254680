// pmukit -- the single dispatch from a discovered unit's family to its driver.
#include <fmt/format.h>

#include "drivers.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

std::unique_ptr<UnitDriver> make_driver(const discovery::PmuUnit& unit, const platform::Database& db) {
  switch (unit.family) {
    case discovery::Family::IntelUncore: return make_intel_box(unit);
    case discovery::Family::CoreSight: return make_coresight(unit, db);
    case discovery::Family::DwcRasDes: return make_dwc_rasdes(unit);
    case discovery::Family::T410C2c:
    case discovery::Family::T410CmemLatency: break;
  }
  throw Error(fmt::format("{}: direct programming of {} units is not supported", unit.name, discovery::family_name(unit.family)));
}

}  // namespace pmukit::pmu
