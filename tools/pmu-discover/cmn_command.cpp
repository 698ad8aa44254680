// pmu-discover -- the --cmn and --cmn-svg commands.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cmn_view.h"
#include "common/tool.h"
#include "pmukit/access/machine.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/cmn/cmn_json.h"
#include "pmukit/families/cmn/cmn_mesh.h"
#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit::tools {

namespace {

using discovery::CmnUnit;
using discovery::PmuUnit;

std::vector<std::uint16_t> resolve_types(const std::vector<std::string>& words, const platform::CmnData& data) {
  std::vector<std::uint16_t> out;
  for (const auto& w : words) {
    auto t = data.types_named(w);
    if (t.empty()) {
      std::vector<std::string> names;
      for (const auto& nt : data.node_types) names.push_back(nt.name);
      throw UsageError(fmt::format("--cmn-type {}: no CMN node type of that name (known: {}, or a number)", w,
                                   fmt::join(names, ", ")));
    }
    out.insert(out.end(), t.begin(), t.end());
  }
  return out;
}

std::vector<const PmuUnit*> select_units(const discovery::Inventory& inv, const std::vector<std::string>& pmus) {
  std::vector<const PmuUnit*> all, out;
  for (const auto& u : inv.units)
    if (u.as<CmnUnit>()) all.push_back(&u);
  if (pmus.empty()) return all;
  for (const auto& name : pmus) {
    auto it = std::find_if(all.begin(), all.end(), [&](const PmuUnit* u) { return u->name == name; });
    if (it == all.end()) {
      std::vector<std::string> names;
      for (const auto* u : all) names.push_back(u->name);
      throw UsageError(fmt::format("--cmn-pmu {}: no such mesh here (found: {})", name,
                                   names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    out.push_back(*it);
  }
  return out;
}

void print_text(const std::vector<const PmuUnit*>& units, const std::vector<std::uint16_t>& types,
                const platform::CmnData& data) {
  bool first = true;
  for (const auto* pu : units) {
    const auto& u = *pu->as<CmnUnit>();
    if (!first) fmt::print("\n");
    first = false;
    auto nodes = discovery::cmn_nodes_sorted(u, types);
    fmt::print("{}\n", cmn_heading(*pu, data));
    if (types.empty())
      for (const auto& note : pu->notes) fmt::print("! {}\n", note);
    for (const auto* n : nodes) fmt::print("{}\n", cmn_node_line(*n, data));
    if (!types.empty() || !u.walked) continue;
    fmt::print("\n");
    for (const auto& line : cmn_ascii_map(u, data)) fmt::print("{}\n", line);
  }
}

void print_json(const Machine& machine, const std::vector<const PmuUnit*>& units,
                const std::vector<std::uint16_t>& types) {
  nlohmann::ordered_json out{{"schema", "pmukit.cmn/1"}, {"source", machine.describe()}};
  out["meshes"] = nlohmann::ordered_json::array();
  for (const auto* pu : units) {
    auto j = discovery::to_json(*pu);
    const auto& u = *pu->as<CmnUnit>();
    nlohmann::ordered_json selected = nlohmann::ordered_json::array();
    for (const auto* n : discovery::cmn_nodes_sorted(u, types)) selected.push_back(n - u.nodes.data());
    j["selected_nodes"] = selected;
    out["meshes"].push_back(j);
  }
  fmt::print("{}\n", out.dump(2));
}

}  // namespace

int show_cmn(Machine& machine, const CmnOptions& o, bool text, bool json) {
  const auto& soc = platform::Database::builtin().soc(platform::SocSection::Cmn);
  if (!soc.cmn) throw Error("platforms: no CMN data");
  auto types = resolve_types(o.types, *soc.cmn);
  auto result = families::discover(machine);
  auto units = select_units(result.inventory, o.pmus);
  if (json)
    print_json(machine, units, types);
  else if (text && units.empty())
    fmt::print("No Arm CMN mesh found on {}.\n", machine.describe());
  else if (text)
    print_text(units, types, *soc.cmn);
  if (!o.svg.empty()) {
    if (units.empty()) throw Error(fmt::format("{}: no Arm CMN mesh on {} to draw", o.svg, machine.describe()));
    write_file(o.svg, cmn_svg(units, *soc.cmn));
    if (!text && !json) fmt::print("Wrote the picture of {} mesh(es) to {}.\n", units.size(), o.svg);
  }
  for (const auto& w : result.inventory.warnings) warn(w);
  return 0;
}

}  // namespace pmukit::tools
