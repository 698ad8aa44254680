// pmukit -- internal: Intel units that claim one register (intel_overlap.cpp).
#pragma once

#include <cstddef>

#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

// Two Intel units that claim one register (the same MSR through the same CPU, the same MMIO bytes,
// the same config-space bytes of one function) would program each other: one warning per pair,
// naming both units and the first shared register, and a note on each unit. Returns the pairs.
std::size_t warn_overlapping_units(Inventory& inventory);

}  // namespace pmukit::discovery
