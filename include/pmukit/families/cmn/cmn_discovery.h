// pmukit -- Arm CMN-600/650/700 and CI-700 meshes: finding each instance the way Linux does
// (ACPI ARMHC600/650/700 devices with their /proc/iomem ranges, devicetree arm,cmn-* nodes),
// walking its node tree with guards (cmn_walk.h), and decoding the mesh as the arm-cmn driver does
// (cmn_mesh.h).
#pragma once

#include <vector>

#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// The inventory discoverer: one unit per CMN instance, named as Linux names it (arm_cmn_<n>).
unsigned discover_cmn(Machine& machine, const Topology& topo, const std::vector<acpi::AcpiDevice>& acpi_devices,
                      Inventory& inventory);

}  // namespace pmukit::discovery
