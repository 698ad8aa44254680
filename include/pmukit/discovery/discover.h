// pmukit -- discovery of every PMU family on a machine, into one Inventory.
#pragma once

#include <span>
#include <vector>

#include "pmukit/discovery/family.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"
#include "pmukit/pci/device.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

struct DiscoveryResult {
  Inventory inventory;
  std::vector<pci::Device> devices;  // the PCI scan discovery used
  Topology topology;
  std::optional<CpuIdentity> cpu;
};

// Reads the machine's facts once (CPU, topology, PCI scan, ACPI devices) and runs each family's
// discover(), then each one's finish(), in the order given (families::all() is pmukit's list,
// and families::discover() runs it). Problems with one table, node or device are warnings in the
// inventory; only a machine whose PCI tree cannot be read at all throws.
DiscoveryResult discover(Machine& machine, std::span<const Family* const> families);

}  // namespace pmukit::discovery
