// pmu-discover -- Arm CMN meshes: the node listing in the form of the Alibaba Yitian 710 CMN
// guide (families/cmn/cmn_text.h), the mesh picture (ASCII, laid out the way Arm's cmn-tools
// draws it; and SVG).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/families/cmn/cmn_data.h"
#include "pmukit/families/cmn/cmn_text.h"
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

using families::cmn_heading;
using families::cmn_node_line;

// The mesh as text, north up: each XP as "<node id>(x,y)", its ports on the diagonals (port 0
// lower left, 1 upper right, 2 lower right, 3 upper left) as "<first node id>:<device type>" with
// the port's nodes under or over it as "<node id>:<type><logical id>".
std::vector<std::string> cmn_ascii_map(const discovery::CmnUnit& unit, const platform::CmnData& data);

// The same picture as an SVG document (all `units` stacked), for reports.
std::string cmn_svg(const std::vector<const discovery::PmuUnit*>& units, const platform::CmnData& data);

}  // namespace pmukit::tools
