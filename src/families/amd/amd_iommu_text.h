// pmukit -- the AMD IOMMU section of pmu-discover's text view.
#pragma once

#include <string>

#include "pmukit/discovery/inventory.h"

namespace pmukit::families {

std::string amd_iommu_text_section(const discovery::Inventory& inventory, bool verbose);

}  // namespace pmukit::families
