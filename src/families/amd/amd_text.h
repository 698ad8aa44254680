// pmukit -- internal: the AMD section of pmu-discover's text view (amd_text.cpp).
#pragma once

#include <string>

#include "pmukit/discovery/inventory.h"

namespace pmukit::families {

std::string amd_text_section(const discovery::Inventory& inventory, bool verbose);

}  // namespace pmukit::families
