// pmukit -- Arm CMN-600/650/700 and CI-700 meshes: finding each instance the way Linux does
// (ACPI ARMHC600/650/700 devices with their /proc/iomem ranges, devicetree arm,cmn-* nodes),
// walking its node tree with guards, and decoding the mesh as the arm-cmn driver does.
//
// The walk only reads, through one read-only mapping of the configuration region, and never
// reads where a wrong read can hang a machine: external children (outside the mesh's power
// domain), isolated children, anything outside the region or misaligned, a node twice, more
// levels than root -> crosspoint -> device, and nothing at all behind the ports of a mesh with
// device isolation enabled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"
#include "pmukit/families/cmn/cmn_data.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// The configuration region as the walk reads it: loads at offsets from the region's base. On a
// machine it is one read-only RegisterWindow; tests and benchmarks give register images.
class CmnRegion {
 public:
  virtual ~CmnRegion() = default;
  virtual std::uint64_t size() const = 0;
  virtual std::uint64_t read64(std::uint64_t offset) const = 0;
  virtual std::uint32_t read32(std::uint64_t offset) const = 0;
};

// Reads the node tree whose root is at unit.root_offset and decodes the mesh. Fills everything
// the root node and the tree say (part, mesh, nodes, DTMs, DTCs, skipped pointers, reads) and
// sets unit.walked; `unit.firmware_part` is compared with the part read. Problems are appended
// to `problems`, one line each naming the offset.
void walk_cmn(const CmnRegion& region, const platform::CmnData& data, CmnUnit& unit,
              std::vector<std::string>& problems);

// The mesh from the nodes the walk read, as arm-cmn.c derives it (arm_cmn_discover(),
// arm_cmn_init_dtcs()): size, each node's (x, y, port, device), the XP order, DTMs, DTC domains.
// `part` may be null (then no DTC domain is read). Separate from the walk for tests.
void decode_cmn_mesh(const platform::CmnPart* part, CmnUnit& unit, std::vector<std::string>& problems);

// The inventory discoverer: one unit per CMN instance, named as Linux names it (arm_cmn_<n>).
unsigned discover_cmn(Machine& machine, const Topology& topo, const std::vector<acpi::AcpiDevice>& acpi_devices,
                      Inventory& inventory);

// A unit's nodes in the kernel's order (type, then logical id: arm-cmn.c arm_cmn_node_cmp()),
// only those of `types` when it is not empty.
std::vector<const CmnNode*> cmn_nodes_sorted(const CmnUnit& unit, const std::vector<std::uint16_t>& types = {});

}  // namespace pmukit::discovery
