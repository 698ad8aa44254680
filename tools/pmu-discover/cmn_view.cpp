// pmu-discover -- Arm CMN text views: node listing, mesh picture, --dump summary.
#include "cmn_view.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/families/cmn/cmn_mesh.h"
#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/platform/database.h"

namespace pmukit::tools {

using discovery::CmnNode;
using discovery::CmnUnit;
using discovery::CmnXp;

namespace {

// A character canvas, row 0 at the bottom (north up, as cmn-tools' textdiagram draws).
class Canvas {
 public:
  void put(int x, int y, std::string_view s) {
    if (x < 0 || y < 0) return;
    if (rows_.size() <= static_cast<std::size_t>(y)) rows_.resize(static_cast<std::size_t>(y) + 1);
    auto& r = rows_[static_cast<std::size_t>(y)];
    auto at = static_cast<std::size_t>(x);
    if (r.size() < at + s.size()) r.resize(at + s.size(), ' ');
    r.replace(at, s.size(), s);
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (auto it = rows_.rbegin(); it != rows_.rend(); ++it) {
      auto end = it->find_last_not_of(' ');
      out.push_back(end == std::string::npos ? std::string() : it->substr(0, end + 1));
    }
    while (!out.empty() && out.back().empty()) out.pop_back();
    while (!out.empty() && out.front().empty()) out.erase(out.begin());
    return out;
  }

 private:
  std::vector<std::string> rows_;
};

struct PortText {
  std::string label;  // "1b4:CCG", "1b0:2xRN-F_E_E"
  std::string nodes;  // "0:CCRA3 1:CCHA3,CCLA7", or "HN-F24" when every node is device 0
};

struct XpText {
  std::string label;  // "1b0(3,6)"
  std::map<unsigned, PortText> ports;
  std::size_t left = 0, right = 0;  // widths needed west of the XP (ports 0, 3) and east of it
};

std::string port_nodes(const std::vector<const CmnNode*>& devs, const platform::CmnData& data) {
  bool devices = std::any_of(devs.begin(), devs.end(), [](const CmnNode* d) { return d->dev != 0; });
  std::string out;
  int group = -1;
  for (const auto* d : devs) {
    std::string entry = fmt::format("{}{}", data.type_name(d->type), d->logid);
    if (devices && static_cast<int>(d->dev) != group)
      out += fmt::format("{}{}:{}", out.empty() ? "" : " ", d->dev, entry);
    else
      out += fmt::format("{}{}", out.empty() ? "" : ",", entry);
    group = static_cast<int>(d->dev);
  }
  return out;
}

XpText xp_text(const CmnUnit& u, const CmnXp& xp, const platform::CmnData& data) {
  const auto& n = u.nodes[xp.node];
  XpText t;
  t.label = fmt::format("{:02x}({},{})", n.id, n.x, n.y);
  if (u.dtcs.size() > 1) t.label += n.dtc >= 0 ? fmt::format(" D{}", n.dtc) : " D?";
  unsigned ext = 0;
  for (const auto& s : u.skipped) ext += s.parent == static_cast<int>(xp.node) ? 1 : 0;
  if (ext) t.label += fmt::format(" +{}*", ext);
  for (const auto& p : xp.ports) {
    unsigned base = n.id + (p.port << xp.deviceid_bits);
    t.ports[p.port].label = fmt::format("{:02x}:{}{}", base, p.cal ? "2x" : "", data.device_type_name(p.device_type));
  }
  std::map<unsigned, std::vector<const CmnNode*>> by_port;
  for (unsigned d : xp.devices) by_port[u.nodes[d].port].push_back(&u.nodes[d]);
  for (auto& [port, devs] : by_port) {
    std::stable_sort(devs.begin(), devs.end(), [](const CmnNode* a, const CmnNode* b) { return a->dev < b->dev; });
    auto& pt = t.ports[port];
    if (pt.label.empty()) pt.label = fmt::format("{:02x}:?", n.id + (port << xp.deviceid_bits));
    pt.nodes = port_nodes(devs, data);
  }
  t.right = t.label.size();
  for (const auto& [p, pt] : t.ports) {
    std::size_t w = std::max(pt.label.size(), pt.nodes.size());
    if (p == 0 || p == 3) t.left = std::max(t.left, w);
    if (p == 1 || p == 2) t.right = std::max(t.right, w + 2);
  }
  return t;
}

void draw_xp(Canvas& c, const XpText& t, int cx, int cy) {
  c.put(cx, cy, t.label);
  for (const auto& [p, pt] : t.ports) {
    if (p > 3) continue;  // ports 4 and 5: in the listing, not drawn (nor by cmn-tools)
    bool west = p == 0 || p == 3, north = p == 1 || p == 3;
    c.put(west ? cx - 1 : cx + 1, north ? cy + 1 : cy - 1, north == west ? "\\" : "/");
    int ly = north ? cy + 2 : cy - 2, dir = north ? 1 : -1;  // label row; the node line is one further out
    c.put(west ? cx - 1 - static_cast<int>(pt.label.size()) : cx + 2, ly, pt.label);
    c.put(west ? cx - 1 - static_cast<int>(pt.nodes.size()) : cx + 2, ly + dir, pt.nodes);
  }
}

}  // namespace

std::vector<std::string> cmn_ascii_map(const CmnUnit& u, const platform::CmnData& data) {
  if (u.xps.empty() || u.mesh_x == 0) return {"(no crosspoints)"};
  std::vector<XpText> texts;
  std::vector<std::size_t> left(u.mesh_x, 0), right(u.mesh_x, 0);  // per column
  for (const auto& xp : u.xps) {
    texts.push_back(xp_text(u, xp, data));
    unsigned x = std::min(u.nodes[xp.node].x, u.mesh_x - 1);
    left[x] = std::max(left[x], texts.back().left);
    right[x] = std::max(right[x], texts.back().right);
  }
  std::vector<int> cx(u.mesh_x);  // each column's XP position: its west labels, then 4 spaces after the east ones
  int at = 0;
  for (unsigned x = 0; x < u.mesh_x; ++x) {
    cx[x] = at + static_cast<int>(left[x]) + 1;
    at = cx[x] + static_cast<int>(right[x]) + 4;
  }
  const int cell_h = 8;
  Canvas c;
  for (std::size_t i = 0; i < u.xps.size(); ++i) {
    const auto& n = u.nodes[u.xps[i].node];
    if (n.x >= u.mesh_x || n.y >= u.mesh_y) continue;
    int x = cx[n.x], y = static_cast<int>(n.y) * cell_h + 4;
    const auto& t = texts[i];
    if (n.x + 1 < u.mesh_x)  // the link east, up to the next XP
      c.put(x + static_cast<int>(t.label.size()) + 1, y,
            std::string(static_cast<std::size_t>(cx[n.x + 1] - x - static_cast<int>(t.label.size()) - 2), '-'));
    if (n.y + 1 < u.mesh_y)  // the link north
      for (int k = 1; k < cell_h; ++k) c.put(x, y + k, "|");
    draw_xp(c, t, x, y);
  }
  auto lines = c.lines();
  lines.push_back("");
  lines.push_back(fmt::format("XP: <node id>(x,y){} (+N*: N external child nodes, not read). Ports: 0 lower left, "
                              "1 upper right, 2 lower right, 3 upper left,",
                              u.dtcs.size() > 1 ? " D<DTC domain>" : ""));
  lines.push_back("as <first node id>:<device type>, with the port's nodes as <type><logical id> (<device>: first when "
                  "a port has several devices).");
  return lines;
}

}  // namespace pmukit::tools
