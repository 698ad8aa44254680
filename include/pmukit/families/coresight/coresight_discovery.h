// pmukit -- Arm CoreSight PMU blocks found through the ACPI APMT: each node's page 0 (and page 1
// when dual-page) is mapped read-only, PMCFGR/PMCR/PMIIDR/PMPIDR are read, the block is identified
// from platforms/coresight/ (APMT impl_id over PMIIDR over PMPIDR, as Linux arm_cspmu does) and
// named as the kernel names it, with the socket from the node's processor affinity.
#pragma once

#include <cstdint>
#include <vector>

#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// Adds one unit per usable APMT node; returns how many.
unsigned discover_coresight(Machine& machine, const Topology& topology,
                            const std::vector<acpi::AcpiDevice>& acpi_devices, Inventory& inventory);

}  // namespace pmukit::discovery
