// pmukit -- the single dispatch from a discovered unit's family to its driver.
#include <set>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/pci_access.h"

#include "drivers.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

std::optional<std::string> direct_access_problem(Machine& machine, const UnitDriver& driver) {
  try {
    RegisterIo io(machine);
    for (const auto& [base, size] : driver.mmio_blocks()) io.map_block(base, size);
    std::set<std::uint32_t> cpus, devices;
    for (const auto& r : driver.registers()) {
      if (r.space == Space::Msr && cpus.insert(r.where).second) machine.msr(static_cast<int>(r.where)).check_writable();
      if (r.space == Space::PciConfig && devices.insert(r.where).second)
        machine.pci()
            .config(Bdf{r.where >> 16, static_cast<std::uint8_t>(r.where >> 8),
                        static_cast<std::uint8_t>((r.where >> 3) & 0x1f), static_cast<std::uint8_t>(r.where & 7)})
            .check_writable();
    }
    WriteGuard guard(io);
    guard.own(driver.registers());
    if (auto why = driver.busy(guard)) return "in use: " + *why;
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::unique_ptr<UnitDriver> make_driver(const discovery::PmuUnit& unit, const platform::Database& db) {
  switch (unit.family) {
  case discovery::Family::IntelUncore:
    return make_intel_box(unit);
  case discovery::Family::CoreSight:
    return make_coresight(unit, db);
  case discovery::Family::DwcRasDes:
    return make_dwc_rasdes(unit);
  case discovery::Family::T410C2c:
  case discovery::Family::T410CmemLatency:
    return make_t410_block(unit);
  case discovery::Family::Cmn:
    throw Error(fmt::format("{}: pmukit discovers Arm CMN meshes but cannot program their counters yet", unit.name));
  }
  throw Error(fmt::format("{}: unknown PMU family", unit.name));
}

}  // namespace pmukit::pmu
