// pmukit -- an Arm CMN mesh in words: a node as the Alibaba Yitian 710 CMN guide lists it, a
// mesh's one-line heading, and the CMN section of pmu-discover's text view.
#pragma once

#include <string>

#include "pmukit/discovery/inventory.h"
#include "pmukit/families/cmn/cmn_data.h"
#include "pmukit/families/cmn/cmn_unit.h"

namespace pmukit::families {

// "nodeid=0x1b5(437), logid=0x7, type=0x105(CCLA), (x,y,portid,devid)=(3,6,1,1)"
std::string cmn_node_line(const discovery::CmnNode& node, const platform::CmnData& data);

// One line naming the mesh: "arm_cmn_0: CMN-700 r1p0, 4x10 mesh, 102 nodes, 1 DTC, ACPI ARMHC700:00 ...".
std::string cmn_heading(const discovery::PmuUnit& unit, const platform::CmnData& data);

// The --dump section: one line per mesh, node counts per type, the node list with `verbose`.
std::string cmn_text_section(const discovery::Inventory& inventory, bool verbose);

}  // namespace pmukit::families
