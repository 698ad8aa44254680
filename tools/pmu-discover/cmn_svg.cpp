// pmu-discover -- the Arm CMN mesh picture as SVG: the ASCII map's layout (north up, ports on the
// XP's diagonals) with device types coloured as Arm's cmn-tools colours them (cmn_diagram.py
// dev_type_color(): CPUs cyan, other requesters yellow, home nodes green, DVM/debug magenta,
// memory red).
#include <fmt/format.h>

#include "cmn_view.h"

namespace pmukit::tools {

using discovery::CmnNode;
using discovery::CmnUnit;

namespace {

constexpr int kCellW = 300, kCellH = 180, kMargin = 20, kTitleH = 36;

std::string esc(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string fill_of(const std::string& dev) {
  if (dev.starts_with("RN-F")) return "#bdeff5";
  if (dev.starts_with("RN-")) return "#f7f0b0";
  if (dev == "HN-D" || dev == "HN-T" || dev == "HN-V") return "#f2c4ef";
  if (dev.starts_with("HN-F") || dev.starts_with("HN-S")) return "#c7efc0";
  if (dev.starts_with("HN-")) return "#f7f0b0";
  if (dev.starts_with("SN-")) return "#f5c0c0";
  return "#eeeeee";
}

// The port boxes of one XP centred at (cx, cy).
void draw_ports(std::string& out, const CmnUnit& u, const discovery::CmnXp& xp, int cx, int cy,
                const platform::CmnData& data) {
  const auto& xn = u.nodes[xp.node];
  static const int dir[4][2] = {{-1, 1}, {1, -1}, {1, 1}, {-1, -1}};  // ports 0..3: SW, NE, SE, NW
  for (const auto& p : xp.ports) {
    if (p.port > 3) continue;
    std::string dev = data.device_type_name(p.device_type);
    std::vector<std::string> lines{
        fmt::format("P{} {:x}:{}{}", p.port, xn.id + (p.port << xp.deviceid_bits), p.cal ? "2x" : "", dev)};
    for (unsigned d : xp.devices) {
      const CmnNode& n = u.nodes[d];
      if (n.port == p.port) lines.push_back(fmt::format("{:x}:{}#{}", n.id, data.type_name(n.type), n.logid));
    }
    int w = 112, h = 14 * static_cast<int>(lines.size()) + 6;
    int bx = cx + dir[p.port][0] * 86 - w / 2, by = cy + dir[p.port][1] * 50 - h / 2;
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" class="port"/>)", cx + dir[p.port][0] * 30,
                       cy + dir[p.port][1] * 12, bx + w / 2, by + h / 2);
    out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" rx="3" fill="{}" class="dev"/>)", bx, by, w, h,
                       fill_of(dev));
    for (std::size_t i = 0; i < lines.size(); ++i)
      out += fmt::format(R"(<text x="{}" y="{}" class="{}">{}</text>)", bx + 4, by + 14 + 14 * static_cast<int>(i),
                         i ? "node" : "plabel", esc(lines[i]));
    out += "\n";
  }
}

void draw_mesh(std::string& out, const discovery::PmuUnit& pu, int top, const platform::CmnData& data) {
  const auto& u = *pu.as<CmnUnit>();
  out += fmt::format(R"(<text x="{}" y="{}" class="title">{}</text>)", kMargin, top + 22, esc(cmn_heading(pu, data)));
  out += "\n";
  auto centre = [&](const CmnNode& n) {
    return std::pair(kMargin + static_cast<int>(n.x) * kCellW + kCellW / 2,
                     top + kTitleH + static_cast<int>(u.mesh_y - 1 - n.y) * kCellH + kCellH / 2);
  };
  for (const auto& xp : u.xps) {  // links first, under the boxes
    auto [cx, cy] = centre(u.nodes[xp.node]);
    const auto& n = u.nodes[xp.node];
    if (n.x + 1 < u.mesh_x)
      out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" class="link"/>)", cx, cy, cx + kCellW, cy);
    if (n.y + 1 < u.mesh_y)
      out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" class="link"/>)", cx, cy, cx, cy - kCellH);
  }
  out += "\n";
  for (const auto& xp : u.xps) {
    const auto& n = u.nodes[xp.node];
    auto [cx, cy] = centre(n);
    draw_ports(out, u, xp, cx, cy, data);
    std::string label = fmt::format("XP {:x} ({},{})", n.id, n.x, n.y);
    if (u.dtcs.size() > 1) label += n.dtc >= 0 ? fmt::format(" D{}", n.dtc) : " D?";
    int w = 7 * static_cast<int>(label.size()) + 12;  // 11px monospace: about 6.6px a character
    out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="24" rx="6" class="xp"/>)", cx - w / 2, cy - 12, w);
    out += fmt::format(R"(<text x="{}" y="{}" class="xlabel" text-anchor="middle">{}</text>)", cx, cy + 4, esc(label));
    out += "\n";
  }
}

}  // namespace

std::string cmn_svg(const std::vector<const discovery::PmuUnit*>& units, const platform::CmnData& data) {
  int width = 2 * kMargin, height = kMargin;
  for (const auto* pu : units) {
    const auto& u = *pu->as<CmnUnit>();
    width = std::max(width, 2 * kMargin + static_cast<int>(std::max(u.mesh_x, 1u)) * kCellW);
    height += kTitleH + static_cast<int>(std::max(u.mesh_y, 1u)) * kCellH + kMargin;
  }
  std::string out =
      fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n"
                  "<title>Arm CMN mesh (pmukit pmu-discover --cmn-svg)</title>\n"
                  "<style>.link{{stroke:#555;stroke-width:3}} .port{{stroke:#888;stroke-width:1}} "
                  ".xp{{fill:#dde3ea;stroke:#333;stroke-width:1.5}} .dev{{stroke:#666;stroke-width:0.8}} "
                  "text{{font-family:monospace}} .title{{font-size:15px;font-weight:bold}} .xlabel{{font-size:11px}} "
                  ".plabel{{font-size:10px;font-weight:bold}} .node{{font-size:10px}}</style>\n"
                  "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
                  width, height, width, height);
  int top = kMargin / 2;
  for (const auto* pu : units) {
    draw_mesh(out, *pu, top, data);
    top += kTitleH + static_cast<int>(std::max(pu->as<CmnUnit>()->mesh_y, 1u)) * kCellH + kMargin;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace pmukit::tools
