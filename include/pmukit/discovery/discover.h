// pmukit -- discovery of every PMU family on a machine, into one Inventory.
#pragma once

#include <vector>

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
  unsigned intel_table_mmaps = 0;
  unsigned coresight_mmaps = 0;  // CoreSight pages mapped (page 0, and page 1 when dual-page)
};

// Runs every discoverer. Problems with one table, node or device are warnings in the inventory;
// only a machine whose PCI tree cannot be read at all throws.
DiscoveryResult discover(Machine& machine);

}  // namespace pmukit::discovery
