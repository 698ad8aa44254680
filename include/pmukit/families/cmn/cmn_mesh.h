// pmukit -- an Arm CMN mesh decoded from the nodes the walk read, as Linux arm-cmn.c does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/families/cmn/cmn_data.h"
#include "pmukit/families/cmn/cmn_unit.h"

namespace pmukit::discovery {

// The mesh from the nodes the walk read, as arm-cmn.c derives it (arm_cmn_discover(),
// arm_cmn_init_dtcs()): size, each node's (x, y, port, device), the XP order, DTMs, DTC domains.
// `part` may be null (then no DTC domain is read). Separate from the walk for tests.
void decode_cmn_mesh(const platform::CmnPart* part, CmnUnit& unit, std::vector<std::string>& problems);

// A unit's nodes in the kernel's order (type, then logical id: arm-cmn.c arm_cmn_node_cmp()),
// only those of `types` when it is not empty.
std::vector<const CmnNode*> cmn_nodes_sorted(const CmnUnit& unit, const std::vector<std::uint16_t>& types = {});

}  // namespace pmukit::discovery
