// pmukit -- the DesignWare RAS DES section of pmu-discover's text view: one line per root port.
#pragma once

#include <string>

#include "pmukit/discovery/inventory.h"

namespace pmukit::families {

std::string designware_text_section(const discovery::Inventory& inventory, bool verbose);

}  // namespace pmukit::families
