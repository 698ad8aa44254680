// pmukit -- where an Intel PMON unit's registers must not be (discovery/intel_pmon.cpp's checks
// before a decoded unit is listed): on an architectural MSR, in the first MiB or System RAM of
// physical memory, inside the discovery table's own BAR, or in a function's standard config
// header. A table that places a box there is wrong, and programming the box would write what
// is there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pmukit/acpi/devices.h"
#include "pmukit/families/intel/intel_unit.h"

namespace pmukit::discovery::intel {

struct ClashContext {
  // The physical range of the table's BAR (or of the table itself when no BAR holds it).
  std::uint64_t table_first = 0, table_last = 0;
  std::string table_name;              // "0000:6a:03.1 BAR0", "the table at 0x..."
  const acpi::Iomem* iomem = nullptr;  // System RAM ranges, when readable with addresses
};

// What the unit's registers collide with ("" when nothing): one phrase naming the address and
// what is there.
std::string register_clash(const IntelUnit& iu, const ClashContext& ctx);

}  // namespace pmukit::discovery::intel
