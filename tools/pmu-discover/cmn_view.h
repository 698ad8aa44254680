// pmu-discover -- Arm CMN meshes: the node listing in the form of the Alibaba Yitian 710 CMN
// guide, the mesh picture (ASCII, laid out the way Arm's cmn-tools draws it; and SVG), and the
// summary --dump shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/families/cmn/cmn_data.h"
#include "pmukit/families/cmn/cmn_unit.h"

namespace pmukit {
class Machine;
}

namespace pmukit::tools {

struct CmnOptions {
  std::vector<std::string> types;  // --cmn-type: names or numbers
  std::vector<std::string> pmus;   // --cmn-pmu: mesh names
  std::string svg;                 // --cmn-svg FILE
};

// pmu-discover --cmn / --cmn-svg: lists (`text`, or `json`) and draws the meshes; exit status.
int show_cmn(Machine& machine, const CmnOptions& options, bool text, bool json);

// "nodeid=0x1b5(437), logid=0x7, type=0x105(CCLA), (x,y,portid,devid)=(3,6,1,1)"
std::string cmn_node_line(const discovery::CmnNode& node, const platform::CmnData& data);

// One line naming the mesh: "arm_cmn_0: CMN-700 r1p0, 4x10 mesh, 102 nodes, 1 DTC, ACPI ARMHC700:00 ...".
std::string cmn_heading(const discovery::PmuUnit& unit, const platform::CmnData& data);

// The mesh as text, north up: each XP as "<node id>(x,y)", its ports on the diagonals (port 0
// lower left, 1 upper right, 2 lower right, 3 upper left) as "<first node id>:<device type>" with
// the port's nodes under or over it as "<node id>:<type><logical id>".
std::vector<std::string> cmn_ascii_map(const discovery::CmnUnit& unit, const platform::CmnData& data);

// The same picture as an SVG document (all `units` stacked), for reports.
std::string cmn_svg(const std::vector<const discovery::PmuUnit*>& units, const platform::CmnData& data);

// The --dump section: one line per mesh, node counts per type, the node list with `verbose`.
void print_cmn_summary(const discovery::Inventory& inventory, bool verbose);

}  // namespace pmukit::tools
