// pmukit -- DesignWare PCIe RAS DES counters on root ports (Linux dwc_pcie_pmu.c): a VSEC with the
// RAS DES ID and revision from platforms/designware/, on a root port of a listed DesignWare vendor.
// The vendor check matters: VSEC IDs are vendor-allocated, and Intel root ports carry an unrelated
// VSEC ID 2 (corpus cap-aer-root).
#pragma once

#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"
#include "pmukit/pci/device.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// Adds one unit per qualifying root port; returns how many.
unsigned discover_dwc_rasdes(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                             Inventory& inventory);

}  // namespace pmukit::discovery
