// pmu-discover -- the inventory view (--dump): socket -> die -> type -> box, and its JSON.
#pragma once

#include "pmukit/discovery/discover.h"

#include <string>
#include <vector>

namespace pmukit::tools {

// `why_none`: when no unit was found, why (discovery::no_access_causes), one line each.
void print_inventory_text(const discovery::DiscoveryResult& result, bool verbose,
                          const std::vector<std::string>& why_none);

}  // namespace pmukit::tools
