// pmukit -- Intel uncore boxes of the kernel's fixed tables (Xeons before the PMON discovery
// tables): placed from platform data (platforms/intel/skx.json; kernel_boxes.h), as Linux
// uncore_snbep.c places them.
#pragma once

#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"
#include "pmukit/pci/device.h"

namespace pmukit {
class Machine;
}
namespace pmukit::platform {
struct IntelUncore;
}

namespace pmukit::discovery {

// Adds a unit per box of every box type with a kernel table, and one IntelTable per socket (origin
// "kernel") that they belong to. Unnamed: discover_intel names every Intel unit.
void discover_kernel_boxes(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                           const platform::IntelUncore& platform, Inventory& inventory);

}  // namespace pmukit::discovery
