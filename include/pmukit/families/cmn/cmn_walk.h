// pmukit -- walking an Arm CMN mesh's node tree (Linux arm-cmn.c arm_cmn_discover()), with guards.
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

#include "pmukit/families/cmn/cmn_data.h"
#include "pmukit/families/cmn/cmn_unit.h"

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

}  // namespace pmukit::discovery
