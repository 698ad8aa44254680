// pmukit -- Intel uncore PMON discovery: finds every discovery table (PCIe DVSEC ID 1 on Intel
// devices, and MSRs 0x201e/0x710/0x711), decodes it, places it on a socket and die, and adds one
// PmuUnit per valid box to the inventory, named as the Linux kernel names it.
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

struct IntelDiscoveryStats {
  unsigned tables = 0;
  unsigned mmap_calls = 0;  // mappings made to read the tables
};

// `platform` may be null (unknown CPU): units still decode, with generic names.
IntelDiscoveryStats discover_intel(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                                   const platform::IntelUncore* platform, Inventory& inventory);

}  // namespace pmukit::discovery
