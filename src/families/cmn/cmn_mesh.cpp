// pmukit -- decoding a CMN mesh from the nodes the walk read, as Linux arm-cmn.c does.
//
// Mesh size (arm_cmn_discover()): XP logical ids run row by row, so the XP whose node id is
// 1 << 3 -- the one at (0,1) whatever the id format -- has logical id mesh_x; with no such XP the
// mesh is N x 1. Node id format: [2:0] port and device, then Y, then X, each coordinate
// fls((mesh_x - 1) | (mesh_y - 1) | 2) bits wide (arm_cmn_xyidbits() up to Linux 6.11; the Arm
// SCP-firmware cmn700 module and cmn-tools id_coord_bits() agree: 2 bits up to 4, 3 up to 8, 4
// beyond). Linux 6.12 dropped the "| 2", which changes only meshes of at most 2x2; pmukit keeps
// the hardware's 2-bit minimum there. Port and device bits are per XP (Linux 6.12 "Refactor node
// ID handling. Again."): 2 port bits and 1 device bit on an XP with a port above 1 connected,
// 1 and 2 otherwise, 3 and 2 in a 1x1 mesh. A device node's XP is the one its id names
// (arm_cmn_node_to_xp()); its DTM is that XP's first, plus port / 2 with multiple DTMs
// (arm_cmn_init_dtcs()); its DTC domain is the XP's (arm_cmn_dtc_domain()).
#include "pmukit/families/cmn/cmn_mesh.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "pmukit/families/cmn/cmn_regs.h"

namespace pmukit::discovery {

namespace {

namespace r = regs::cmn;

void sort_xps(CmnUnit& u) {
  std::stable_sort(u.xps.begin(), u.xps.end(),
                   [&](const CmnXp& a, const CmnXp& b) { return u.nodes[a.node].logid < u.nodes[b.node].logid; });
  for (std::size_t i = 0; i < u.xps.size(); ++i) {
    u.nodes[u.xps[i].node].xp = static_cast<int>(i);
    for (unsigned d : u.xps[i].devices) u.nodes[d].xp = static_cast<int>(i);
  }
}

void mesh_size(CmnUnit& u, std::vector<std::string>& problems) {
  auto n = static_cast<unsigned>(u.xps.size());
  u.mesh_x = 0;
  for (const auto& xp : u.xps)
    if (u.nodes[xp.node].id == (1u << 3)) u.mesh_x = u.nodes[xp.node].logid;
  if (u.mesh_x == 0 || n % u.mesh_x) {
    if (u.mesh_x)
      problems.push_back(fmt::format("{}: the XP at (0,1) says the mesh is {} wide, which {} crosspoints do not fill; "
                                     "taken as {}x1",
                                     u.device, u.mesh_x, n, n));
    u.mesh_x = n;
  }
  u.mesh_y = n / u.mesh_x;
  if (std::max(u.mesh_x, u.mesh_y) > r::kMaxDimension)
    problems.push_back(fmt::format("{}: a {}x{} mesh is larger than any CMN supports (Linux refuses it)", u.device,
                                   u.mesh_x, u.mesh_y));
  u.xy_bits = static_cast<unsigned>(std::bit_width((u.mesh_x - 1) | (u.mesh_y - 1) | 2u));
}

// (x, y) from the bits above port and device.
void place(const CmnUnit& u, CmnNode& n, unsigned low_bits) {
  unsigned xy = n.id >> low_bits;
  n.x = xy >> u.xy_bits;
  n.y = xy & static_cast<unsigned>(low_mask(u.xy_bits));
}

void add_dtms(CmnUnit& u, unsigned i) {
  auto& xp = u.xps[i];
  std::uint8_t ports = xp.connected();
  unsigned count = 1;
  if (u.multi_dtm && ports > 0x3) count = 2;
  if (u.multi_dtm && ports > 0xf) count = 3;
  for (unsigned k = 0; k < count; ++k) {
    xp.dtms.push_back(static_cast<unsigned>(u.dtms.size()));
    u.dtms.push_back({i, k, u.nodes[xp.node].offset + r::kPmuPage + r::dtm_offset(k)});
  }
  u.nodes[xp.node].dtm = static_cast<int>(xp.dtms.front());
}

void decode_xps(CmnUnit& u, std::vector<std::string>& problems) {
  bool misordered = false;
  for (unsigned i = 0; i < u.xps.size(); ++i) {
    auto& xp = u.xps[i];
    std::uint8_t ports = xp.connected();
    u.ports_used |= ports;
    if (u.xps.size() == 1)
      xp.portid_bits = 3, xp.deviceid_bits = 2;
    else if (ports > 0x3)
      xp.portid_bits = 2, xp.deviceid_bits = 1;
    else
      xp.portid_bits = 1, xp.deviceid_bits = 2;
    auto& n = u.nodes[xp.node];
    place(u, n, xp.portid_bits + xp.deviceid_bits);
    misordered = misordered || u.mesh_x * n.y + n.x != i;
    add_dtms(u, i);
  }
  if (misordered)
    problems.push_back(fmt::format("{}: XP logical ids do not run row by row: Linux would give some nodes the wrong "
                                   "XP (and DTM)",
                                   u.device));
}

void decode_devices(CmnUnit& u, std::vector<std::string>& problems) {
  for (unsigned i = 0; i < u.xps.size(); ++i) {
    const auto& xp = u.xps[i];
    for (unsigned d : xp.devices) {
      auto& n = u.nodes[d];
      n.dev = n.id & static_cast<unsigned>(low_mask(xp.deviceid_bits));
      n.port = (n.id >> xp.deviceid_bits) & static_cast<unsigned>(low_mask(xp.portid_bits));
      place(u, n, xp.portid_bits + xp.deviceid_bits);
      if (u.mesh_x * n.y + n.x != i || n.x >= u.mesh_x || n.y >= u.mesh_y)
        problems.push_back(fmt::format("{}: node {:#x} (type {:#x}) @{:#x} is a child of XP {:#x} but its id places it "
                                       "at ({},{}): Linux would count it on the wrong XP",
                                       u.device, n.id, n.type, n.offset, u.nodes[xp.node].id, n.x, n.y));
      unsigned k = u.multi_dtm ? std::min<unsigned>(n.port / 2, static_cast<unsigned>(xp.dtms.size()) - 1) : 0;
      n.dtm = static_cast<int>(xp.dtms[k]);
    }
  }
}

void decode_dtcs(const platform::CmnPart* part, CmnUnit& u, std::vector<std::string>& problems) {
  std::vector<unsigned> dtc_nodes;
  for (unsigned i = 0; i < u.nodes.size(); ++i)
    if (u.nodes[i].type == r::kTypeDtc) dtc_nodes.push_back(i);
  std::stable_sort(dtc_nodes.begin(), dtc_nodes.end(),
                   [&](unsigned a, unsigned b) { return u.nodes[a].logid < u.nodes[b].logid; });
  for (unsigned k = 0; k < dtc_nodes.size(); ++k) u.dtcs.push_back({k, dtc_nodes[k], u.nodes[dtc_nodes[k]].offset});
  if (u.dtcs.size() > r::kMaxDtcs)
    problems.push_back(
        fmt::format("{}: {} DTC nodes, more than the {} domains a CMN has", u.device, u.dtcs.size(), r::kMaxDtcs));
  if (u.dtcs.empty()) problems.push_back(fmt::format("{}: no DTC node: nothing can count on this mesh", u.device));
  bool readable = part && part->dtc_domain_register;
  for (const auto& xp : u.xps) {
    auto& n = u.nodes[xp.node];
    // CMN-600 XPs do not say; with one DTC there is only one domain to be in.
    if (!readable) n.dtc = u.dtcs.size() == 1 ? 0 : -1;
    if (n.dtc >= static_cast<int>(u.dtcs.size()) && !u.dtcs.empty())
      problems.push_back(fmt::format("{}: XP {:#x} is in DTC domain {}, but the mesh has {} DTC node(s)", u.device,
                                     n.id, n.dtc, u.dtcs.size()));
    for (unsigned d : xp.devices) u.nodes[d].dtc = n.dtc;
  }
  for (const auto& dtc : u.dtcs) {
    const auto& n = u.nodes[dtc.node];
    int xp_domain = u.nodes[u.xps[static_cast<unsigned>(n.xp)].node].dtc;
    if (xp_domain >= 0 && xp_domain != static_cast<int>(dtc.domain))
      problems.push_back(
          fmt::format("{}: DTC {} (node {:#x}) sits on an XP of DTC domain {}", u.device, dtc.domain, n.id, xp_domain));
  }
}

}  // namespace

void decode_cmn_mesh(const platform::CmnPart* part, CmnUnit& u, std::vector<std::string>& problems) {
  u.dtms.clear();
  u.dtcs.clear();
  u.ports_used = 0;
  if (u.xps.empty()) {
    problems.push_back(fmt::format("{}: the node tree has no crosspoints", u.device));
    return;
  }
  sort_xps(u);
  mesh_size(u, problems);
  decode_xps(u, problems);
  decode_devices(u, problems);
  decode_dtcs(part, u, problems);
}

std::vector<const CmnNode*> cmn_nodes_sorted(const CmnUnit& unit, const std::vector<std::uint16_t>& types) {
  std::vector<const CmnNode*> out;
  for (const auto& n : unit.nodes)
    if (types.empty() || std::find(types.begin(), types.end(), n.type) != types.end()) out.push_back(&n);
  std::stable_sort(out.begin(), out.end(), [](const CmnNode* a, const CmnNode* b) {
    return std::pair(a->type, a->logid) < std::pair(b->type, b->logid);
  });
  return out;
}

}  // namespace pmukit::discovery
