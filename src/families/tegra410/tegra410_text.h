// pmukit -- the Tegra410 section of pmu-discover's text view: the C2C and CMEM latency blocks.
#pragma once

#include <string>

#include "pmukit/discovery/inventory.h"

namespace pmukit::families {

std::string tegra410_text_section(const discovery::Inventory& inventory, bool verbose);

}  // namespace pmukit::families
