// pmukit -- AMD IOMMU performance counters from the PCI scan: every function of class 0806h with
// the IOMMU capability (ID 0Fh, type 011b), its MMIO base from the capability, and -- only when
// /proc/iomem proves the region is the IOMMU's -- the counter banks from its MMIO registers.
#pragma once

#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"
#include "pmukit/pci/device.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// Adds one unit per IOMMU function, named amd_iommu_<n> in PCI order; returns how many.
unsigned discover_amd_iommus(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                             Inventory& inventory);

}  // namespace pmukit::discovery
