// pmukit -- an Arm CMN mesh in words.
#include "pmukit/families/cmn/cmn_text.h"

#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/families/cmn/cmn_mesh.h"
#include "pmukit/platform/database.h"

namespace pmukit::families {

using discovery::CmnNode;
using discovery::CmnUnit;

std::string cmn_node_line(const CmnNode& n, const platform::CmnData& data) {
  return fmt::format("nodeid={:#x}({}), logid={:#x}, type={:#x}({}), (x,y,portid,devid)=({},{},{},{})", n.id, n.id,
                     n.logid, n.type, data.type_name(n.type), n.x, n.y, n.port, n.dev);
}

std::string cmn_heading(const discovery::PmuUnit& pu, const platform::CmnData&) {
  const auto& u = *pu.as<CmnUnit>();
  std::string what = u.walked
                         ? fmt::format("{} {}, {}x{} mesh, {} nodes, {} DTC{}", u.part_name, u.revision_name, u.mesh_x,
                                       u.mesh_y, u.nodes.size(), u.dtcs.size(), u.dtcs.size() == 1 ? "" : "s")
                         : std::string("node tree not read");
  // No region located (u.size 0): said so, not shown as the region 0x0+0x0.
  return u.size ? fmt::format("{}: {}; {}, region {:#x}+{:#x}", pu.name, what, u.firmware, u.base, u.size)
                : fmt::format("{}: {}; {}, no configuration region", pu.name, what, u.firmware);
}

namespace {

// "4 XP, 2 HN-F, ...": how many nodes of each type, in the sorted nodes' order.
std::string type_counts(const std::vector<const CmnNode*>& nodes, const platform::CmnData& data) {
  std::vector<std::pair<std::uint16_t, unsigned>> counts;
  for (const auto* n : nodes) {
    if (counts.empty() || counts.back().first != n->type) counts.emplace_back(n->type, 0);
    ++counts.back().second;
  }
  std::vector<std::string> parts;
  for (const auto& [type, k] : counts) parts.push_back(fmt::format("{} {}", k, data.type_name(type)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string cmn_text_section(const discovery::Inventory& inv, bool verbose) {
  std::vector<const discovery::PmuUnit*> units;
  for (const auto& u : inv.units)
    if (u.as<CmnUnit>()) units.push_back(&u);
  if (units.empty()) return "";  // before asking for the SoC data, which is parsed on first use
  const auto& soc = platform::Database::builtin().soc(platform::SocSection::Cmn);
  if (!soc.cmn) return "";
  const auto& data = *soc.cmn;
  std::string out =
      fmt::format("\nArm CMN meshes: {} (pmu-discover --cmn lists every node and draws the mesh)\n", units.size());
  auto to = std::back_inserter(out);
  for (const auto* pu : units) {
    fmt::format_to(to, "    {}\n", cmn_heading(*pu, data));
    auto nodes = discovery::cmn_nodes_sorted(*pu->as<CmnUnit>());
    if (auto counts = type_counts(nodes, data); !counts.empty()) fmt::format_to(to, "      {}\n", counts);
    if (verbose)
      for (const auto* n : nodes) fmt::format_to(to, "      {}\n", cmn_node_line(*n, data));
    for (const auto& note : pu->notes) fmt::format_to(to, "  ! {}: {}\n", pu->name, note);
  }
  return out;
}

}  // namespace pmukit::families
