// pmukit -- the Intel section of pmu-discover's text view: each discovery table by socket and die,
// its boxes with their registers and kernel PMU names.
#pragma once

#include <string>

#include "pmukit/discovery/inventory.h"

namespace pmukit::families {

std::string intel_text_section(const discovery::Inventory& inventory, bool verbose);

}  // namespace pmukit::families
