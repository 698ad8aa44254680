// pmukit -- the CoreSight section of pmu-discover's text view: the APMT and each PMU by socket.
#pragma once

#include <string>

#include "pmukit/discovery/inventory.h"

namespace pmukit::families {

std::string coresight_text_section(const discovery::Inventory& inventory, bool verbose);

}  // namespace pmukit::families
