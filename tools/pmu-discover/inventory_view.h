// pmu-discover -- the inventory view (--dump): socket -> die -> type -> box, and its JSON.
#pragma once

#include "pmukit/discovery/discover.h"

namespace pmukit::tools {

void print_inventory_text(const discovery::DiscoveryResult& result, bool verbose);

}  // namespace pmukit::tools
