// pmukit -- machine-spec section "cmn": Arm CMN meshes, written as firmware and Linux show them
// (an ACPI ARMHC600/650/700 device with its ranges in /proc/iomem, or a devicetree node) and as
// the hardware lays out its configuration region in dev/mem (docs/snapshot-format.md).
//
// This writer is the hardware model discovery is tested against, so it does not take layouts
// from discovery's register map: offsets are written here from the CMN TRM register summaries as
// Linux arm-cmn.c and Arm SCP-firmware's cmn700 module program them, and the node id encoding is
// the TRM's (x, y each 2 bits up to a 4x4 mesh, 3 up to 8x8, 4 beyond; then port, then device).
#include "cmn_spec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "pmukit/families/cmn/cmn_regs.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::snapshot::spec {

namespace {

namespace r = regs::cmn;

// Node register blocks are 16 KiB; an XP and its devices take one 512 KiB slot, XP first.
constexpr std::uint64_t kBlock = 0x4000, kXpSlot = 0x80000;
constexpr std::uint64_t kChildPointers = 0x100;  // where a node's child pointer array starts (every part)

struct XpSpec {
  std::array<std::uint64_t, 6> connect{};  // por_mxp_device_port_connect_info_p0..5
  unsigned dtc = 0;
  std::vector<std::size_t> children;  // into Mesh::nodes, in pointer order
  std::uint8_t ports() const {
    std::uint8_t m = 0;
    for (unsigned p = 0; p < 6; ++p) m |= connect[p] ? static_cast<std::uint8_t>(1u << p) : 0;
    return m;
  }
  // Device ports the XP has: up to the highest one connected, at least two.
  unsigned port_count() const { return std::max(2u, static_cast<unsigned>(std::bit_width(ports()))); }
};

struct NodeSpec {
  std::uint16_t type = 0;
  unsigned x = 0, y = 0, port = 0, dev = 0;
  std::optional<unsigned> logid;
  bool external = false;
  std::uint64_t offset = 0;
};

struct Mesh {
  const platform::CmnData& data;
  const platform::CmnPart& part;
  std::string where;
  unsigned mx = 1, my = 1, bits = 2;
  std::vector<XpSpec> xps;  // index y * mx + x = the XP's logical id
  std::vector<NodeSpec> nodes;

  XpSpec& at(unsigned x, unsigned y) { return xps[y * mx + x]; }
  // Node id: [2:0] port and device (2 port bits and 1 device bit on an XP using ports above 1),
  // then y, then x; a 1x1 mesh has 3 port bits.
  std::uint16_t id(unsigned x, unsigned y, unsigned port, unsigned dev) {
    unsigned devbits = xps.size() == 1 ? 2 : at(x, y).ports() > 0x3 ? 1 : 2;
    unsigned portbits = xps.size() == 1 ? 3 : 3 - devbits;
    if (dev >= (1u << devbits) || port >= (1u << portbits))
      throw Error(
          fmt::format("{}: device {} on port {} does not fit the node id of XP ({},{})", where, dev, port, x, y));
    unsigned xy = xps.size() == 1 ? 0 : (x << bits | y) << 3;
    return static_cast<std::uint16_t>(xy | port << devbits | dev);
  }
};

std::vector<std::pair<unsigned, unsigned>> select_xps(const json& j, const Mesh& m, const std::string& where) {
  std::vector<std::pair<unsigned, unsigned>> out;
  auto add = [&](std::uint64_t x, std::uint64_t y) {
    if (x >= m.mx || y >= m.my)
      throw Error(fmt::format("{}: XP ({},{}) is outside the {}x{} mesh", where, x, y, m.mx, m.my));
    out.emplace_back(static_cast<unsigned>(x), static_cast<unsigned>(y));
  };
  if (j.is_string() && j.get<std::string>() == "all") {
    for (unsigned y = 0; y < m.my; ++y)
      for (unsigned x = 0; x < m.mx; ++x) add(x, y);
  } else if (j.is_object()) {
    auto xs = j.contains("x") ? id_list(j["x"], m.mx, key_path(where, "x")) : std::vector<unsigned>{};
    auto ys = j.contains("y") ? id_list(j["y"], m.my, key_path(where, "y")) : std::vector<unsigned>{};
    if (xs.empty())
      for (unsigned x = 0; x < m.mx; ++x) xs.push_back(x);
    if (ys.empty())
      for (unsigned y = 0; y < m.my; ++y) ys.push_back(y);
    for (unsigned y : ys)
      for (unsigned x : xs) add(x, y);
  } else if (j.is_array()) {
    for (const auto& p : j) add(num(p.at(0), where), num(p.at(1), where));
  } else {
    throw Error(where + ": xps is \"all\", [[x, y], ...] or {\"x\": \"0-3\", \"y\": \"1\"}");
  }
  return out;
}

std::uint64_t device_type(const json& j, const Mesh& m, const std::string& where) {
  if (!j.is_string() || j.get<std::string>().starts_with("0x")) return num(j, where);
  for (const auto& [code, name] : m.data.device_types)
    if (name == j.get<std::string>()) return code;
  throw Error(fmt::format("{}: unknown port device type '{}'", where, j.get<std::string>()));
}

std::uint16_t node_type(const json& j, const Mesh& m, const std::string& where) {
  if (!j.is_string()) return static_cast<std::uint16_t>(num(j, where));
  for (const auto& t : m.data.node_types)
    if (t.name == j.get<std::string>()) return t.type;
  if (auto n = m.data.types_named(j.get<std::string>()); n.size() == 1) return n.front();
  throw Error(fmt::format("{}: unknown CMN node type '{}'", where, j.get<std::string>()));
}

void read_ports(const json& e, Mesh& m) {
  for (const auto& p : e.value("ports", json::array())) {
    std::string w = m.where + " ports";
    auto port = static_cast<unsigned>(num(p.at("port"), w));
    if (port >= 6) throw Error(w + ": an XP has ports 0 to 5");
    // Connect info: device type [4:0], CAL connected bit 7.
    std::uint64_t ci = device_type(p.at("device"), m, w) | (p.value("cal", false) ? 0x80u : 0u);
    for (auto [x, y] : select_xps(p.at("xps"), m, w)) m.at(x, y).connect[port] = ci;
  }
  for (const auto& d : e.value("dtc_domains", json::array()))
    for (auto [x, y] : select_xps(d.at("xps"), m, m.where + " dtc_domains"))
      m.at(x, y).dtc = static_cast<unsigned>(num(d.at("domain"), m.where + " dtc_domains"));
}

void read_nodes(const json& e, Mesh& m) {
  for (const auto& n : e.value("nodes", json::array())) {
    std::string w = m.where + " nodes";
    NodeSpec s;
    s.type = node_type(n.at("type"), m, w);
    s.external = n.value("external", false);
    std::vector<std::pair<unsigned, unsigned>> at;
    if (n.contains("at")) {
      const json& a = n["at"];
      at = select_xps(json::array({json::array({a.at(0), a.at(1)})}), m, w);
      s.port = static_cast<unsigned>(num(a.at(2), w));
      s.dev = static_cast<unsigned>(num(a.at(3), w));
    } else {
      at = select_xps(n.at("xps"), m, w);
      s.port = static_cast<unsigned>(num_or(n, "port", 0, w));
      s.dev = static_cast<unsigned>(num_or(n, "dev", 0, w));
    }
    if (n.contains("logid")) {
      if (at.size() != 1) throw Error(w + ": logid names one node; give \"at\"");
      s.logid = static_cast<unsigned>(num(n["logid"], w));
    }
    for (auto [x, y] : at) {
      s.x = x, s.y = y;
      m.at(x, y).children.push_back(m.nodes.size());
      m.nodes.push_back(s);
    }
  }
}

// Logical ids count from 0 per node type in XP order, then port and device, skipping ids the spec
// gives explicitly.
void assign_logids(Mesh& m) {
  std::vector<std::size_t> order(m.nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](std::size_t i) {
    const auto& n = m.nodes[i];
    return std::tuple(n.y * m.mx + n.x, n.port, n.dev);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  std::map<std::uint16_t, std::set<unsigned>> taken;
  for (const auto& n : m.nodes)
    if (n.logid) taken[n.type].insert(*n.logid);
  std::map<std::uint16_t, unsigned> next;
  for (std::size_t i : order) {
    auto& n = m.nodes[i];
    if (n.logid) continue;
    unsigned& k = next[n.type];
    while (taken[n.type].count(k)) ++k;
    n.logid = k++;
  }
}

std::uint64_t child_info(std::size_t children) {
  return (r::ChildInfo::Count::put(children) | r::ChildInfo::PtrOffset::put(kChildPointers)).raw;
}

// A logical id too wide for its field is written as given (a test of the walker's bound).
std::uint64_t node_info(std::uint16_t type, std::uint16_t id, unsigned logid) {
  return (r::NodeInfo::NodeType::put(type) | r::NodeInfo::NodeId::put(id)).raw | static_cast<std::uint64_t>(logid)
                                                                                     << r::NodeInfo::LogicalId::lo;
}

// One write per node block: the span from its first to its last register written.
void flush(Context& ctx, std::uint64_t base, const std::map<std::uint64_t, std::uint64_t>& regs) {
  for (auto it = regs.begin(); it != regs.end();) {
    const std::uint64_t block = it->first & ~(kBlock - 1), start = it->first;
    std::vector<std::uint8_t> bytes;
    for (; it != regs.end() && (it->first & ~(kBlock - 1)) == block; ++it) {
      std::size_t at = it->first - start;
      bytes.resize(std::max(bytes.size(), at + 8), 0);
      for (unsigned b = 0; b < 8; ++b) bytes[at + b] = static_cast<std::uint8_t>(it->second >> (8 * b));
    }
    ctx.builder.write_phys(base + start, bytes);
  }
}

using Regs = std::map<std::uint64_t, std::uint64_t>;

// What the part's data says a booted node of this type holds (the TRM's reset values), at the node.
void write_values(const Mesh& m, std::uint16_t type, std::uint64_t node, Regs& regs) {
  auto it = m.part.register_values.find(m.data.type_name(type));
  if (it == m.part.register_values.end()) return;
  for (const auto& [off, value] : it->second) regs[node + off] = value;
}

// por_info_global: the part's value with what the machine says: multiple DTMs [63], device
// isolation [44], and on CMN-650 and later the CHI issue [62:60] (1 = A ...; cmn-tools
// chi_version()).
std::uint64_t info_global(const Mesh& m, const json& e, std::uint64_t part_value) {
  using G = r::InfoGlobal;
  auto value = G::MultipleDtmEn::set(RegValue<G>{part_value}, e.value("multi_dtm", false));
  value = G::DeviceIsoEnable::set(value, e.value("device_isolation", false));
  if (e.contains("chi_version")) {
    const std::uint64_t v = num(e["chi_version"], m.where + " chi_version");
    if (v < 1 || v > 7) throw Error(m.where + ": chi_version is the CHI issue, 1 (A) to 7");
    value = G::ChiVersion::set(value, v);
  }
  return value.raw;
}

// An XP's own registers: node_info, connect info, DTC domain (one per DTM), port info, children.
void write_xp(Mesh& m, std::size_t i, std::uint64_t xo, const json& e, Regs& regs) {
  auto w64 = [&](std::uint64_t off, std::uint64_t v) { regs[off] = v; };
  unsigned x = static_cast<unsigned>(i % m.mx), y = static_cast<unsigned>(i / m.mx);
  const auto& xp = m.xps[i];
  write_values(m, 0x6, xo, regs);
  // XP node_info: CMN-700 puts the number of device ports at [51:48].
  std::uint64_t nports =
      m.part.xp_port_count ? r::NodeInfo::XpDevicePorts::put(static_cast<std::uint64_t>(xp.port_count())).raw : 0;
  w64(xo, node_info(0x6, m.id(x, y, 0, 0), static_cast<unsigned>(i)) | nports);
  for (unsigned p = 0; p < m.part.connect_info_ports; ++p)
    if (xp.connect[p]) w64(xo + r::connect_info(p) + (p >= 2 ? m.part.high_ports_shift : 0), xp.connect[p]);
  // por_dtm_unit_info(_dt1..3): the DTC domain of each of the XP's DTMs (two with multiple DTMs
  // and more than two ports).
  const unsigned dtms = e.value("multi_dtm", false) && xp.port_count() > 2 ? 2 : 1;
  for (unsigned d = 0; m.part.dtc_domain_register && d < dtms; ++d)
    w64(xo + *m.part.dtc_domain_register + 8 * d, xp.dtc);
  // por_mxp_p<n>_info num_dev [2:0]: two devices behind a CAL (connect info bit 7), else one.
  const std::uint64_t info1 = m.part.register_values.count("XP") && m.part.register_values.at("XP").count(0x908)
                                  ? m.part.register_values.at("XP").at(0x908)
                                  : 0;
  for (unsigned p = 0; p < (m.part.xp_port_count ? xp.port_count() : 2u); ++p) {
    const std::uint64_t at = xo + 0x900 + m.part.port_info_stride * p;
    w64(at, xp.connect[p] ? (xp.connect[p] & 0x80 ? 2 : 1) : 0);
    if (m.part.port_info_stride == 0x10) w64(at + 8, info1);
  }
  w64(xo + r::ChildInfo::offset, child_info(xp.children.size()));
  if (xp.children.size() > kXpSlot / kBlock - 1)
    throw Error(fmt::format("{}: too many nodes on XP ({},{})", m.where, x, y));
  for (std::size_t k = 0; k < xp.children.size(); ++k) {
    auto& n = m.nodes[xp.children[k]];
    n.offset = xo + kBlock * (k + 1);
    w64(xo + kChildPointers + 8 * k, n.offset | r::ChildPointer::External::put(n.external).raw);
    write_values(m, n.type, n.offset, regs);
    w64(n.offset, node_info(n.type, m.id(n.x, n.y, n.port, n.dev), *n.logid));
  }
}

void write_region(Context& ctx, Mesh& m, std::uint64_t base, std::uint64_t size, std::uint64_t root, const json& e) {
  std::uint64_t end = kXpSlot * (m.xps.size() + 1);
  if (root % kBlock || (root >= kXpSlot && root < end))
    throw Error(fmt::format("{}: root_offset {:#x} must be 16 KiB aligned and below {:#x}", m.where, root, kXpSlot));
  if (size < end)
    throw Error(fmt::format("{}: size {:#x} is smaller than the {:#x} bytes the mesh needs", m.where, size, end));
  Regs regs;  // written once per node block below
  auto w64 = [&](std::uint64_t off, std::uint64_t v) { regs[off] = v; };
  w64(size - 8, 0);  // the whole region exists
  // CFG: the part's values, node_info, periph_id_0/1 (part [7:0], part [11:8] at [35:32]; JEP106 Arm
  // 0x3b), periph_id_2/3 (revision [7:4]), por_info_global, child_info, XPs.
  write_values(m, 0x2, root, regs);
  w64(root + r::NodeInfo::offset, node_info(r::kTypeCfg, 0, 0));
  w64(root + r::PeriphId01::offset, (m.part.part & 0xffu) | static_cast<std::uint64_t>(0xb0 | (m.part.part >> 8))
                                                                << 32);
  w64(root + r::PeriphId23::offset, static_cast<std::uint64_t>(num_or(e, "revision", 0, m.where)) << 4 | 0xb);
  const std::uint64_t ig = root + r::InfoGlobal::offset;
  w64(ig, info_global(m, e, regs.count(ig) ? regs[ig] : 0));
  w64(root + r::ChildInfo::offset, child_info(m.xps.size()));
  for (std::size_t i = 0; i < m.xps.size(); ++i) {
    std::uint64_t xo = kXpSlot * (i + 1);
    w64(root + kChildPointers + 8 * i, xo);
    write_xp(m, i, xo, e, regs);
  }
  flush(ctx, base, regs);
}

void describe_firmware(Context& ctx, const json& e, const Mesh& m, std::uint64_t base, std::uint64_t size,
                       std::uint64_t root) {
  std::string pdev;
  if (e.contains("compatible")) {
    // A devicetree node at the root (#address-cells = #size-cells = 2) and its platform device.
    std::string compat = e["compatible"].get<std::string>();
    std::string node = fmt::format("/sys/firmware/devicetree/base/cmn@{:x}", base);
    ctx.builder.write_text("/sys/firmware/devicetree/base/#address-cells", std::string("\0\0\0\2", 4));
    ctx.builder.write_text("/sys/firmware/devicetree/base/#size-cells", std::string("\0\0\0\2", 4));
    ctx.builder.write_text(node + "/compatible", compat + std::string(1, '\0'));
    std::string reg;
    for (std::uint64_t v : {base, size})
      for (int b = 7; b >= 0; --b) reg += static_cast<char>(v >> (8 * b));
    ctx.builder.write_text(node + "/reg", reg);
    if (e.contains("root_offset"))
      ctx.builder.write_text(node + "/arm,root-node",
                             std::string{static_cast<char>(root >> 24), static_cast<char>(root >> 16),
                                         static_cast<char>(root >> 8), static_cast<char>(root)});
    pdev = fmt::format("/sys/devices/platform/{:x}.cmn", base);
    link(ctx, fmt::format("/sys/bus/platform/devices/{:x}.cmn", base), pdev);
    // A devicetree platform device's resources reach /proc/iomem only when a driver claims them:
    // arm-cmn does, under the resource's name, the node's name (of_address_to_resource()).
    if (e.contains("kernel_pmu")) add_iomem(ctx, base, size, fmt::format("cmn@{:x}", base));
  } else {
    ensure_acpi_root(ctx);
    std::string hid = e.contains("hid") ? spec::name(e["hid"], m.where + " hid") : "ARMHC700";
    std::optional<std::string> uid;
    if (e.contains("uid")) uid = std::to_string(num(e["uid"], m.where));
    std::string dir = add_acpi_device(ctx, std::string(kAcpiRoot), hid, uid, e.value("path", ""),
                                      static_cast<std::uint32_t>(num_or(e, "status", 15, m.where)));
    std::string name = std::filesystem::path(dir).filename().string();
    pdev = "/sys/devices/platform/" + name;
    link(ctx, dir + "/physical_node", pdev);
    link(ctx, "/sys/bus/platform/devices/" + name, pdev);
    // _CRS: the region; a CMN-600 adds the root node's block, which /proc/iomem nests inside it.
    add_iomem(ctx, base, size, name);
    if (hid == "ARMHC600") add_iomem(ctx, base + root, kBlock, name, 1);
    // arm-cmn claims the region it maps with the device's name (devm_platform_ioremap_resource()).
    if (e.contains("kernel_pmu") && hid != "ARMHC600") add_iomem(ctx, base, size, name, 1);
  }
  if (!e.contains("compatible"))
    ctx.builder.write_text(pdev + "/modalias", "acpi:" + e.value("hid", "ARMHC700") + ":\n");
  ctx.builder.write_text(pdev + "/numa_node", fmt::format("{}\n", e.value("numa_node", -1)));
  if (e.contains("kernel_pmu"))
    add_kernel_pmu(ctx, pdev, spec::name(e["kernel_pmu"], m.where + " kernel_pmu"), next_pmu_type(ctx),
                   json{{"cpumask", "0"}}, m.where);
}

}  // namespace

void write_cmn(const json& section, Context& ctx) {
  const auto& soc = platform::Database::builtin().soc(platform::SocSection::Cmn);
  if (!soc.cmn) throw Error("platforms: no CMN data");
  unsigned k = 0;
  for (const auto& e : section) {
    std::string where = fmt::format("{}: cmn {}", ctx.machine, k++);
    const auto* part = soc.cmn->part(static_cast<std::uint16_t>(num(e.at("part"), where + " part")));
    if (!part) throw Error(where + ": unknown CMN part " + e.at("part").dump());
    Mesh m{*soc.cmn, *part, where};
    m.mx = static_cast<unsigned>(num(e.at("mesh").at(0), where + " mesh"));
    m.my = static_cast<unsigned>(num(e.at("mesh").at(1), where + " mesh"));
    if (m.mx == 0 || m.my == 0 || m.mx > 12 || m.my > 12) throw Error(where + ": a mesh is 1x1 to 12x12");
    unsigned most = std::max(m.mx, m.my);
    m.bits = most > 8 ? 4 : most > 4 ? 3 : 2;
    m.xps.resize(m.mx * m.my);
    read_ports(e, m);
    read_nodes(e, m);
    assign_logids(m);
    std::uint64_t base = num(e.at("base"), where + " base");
    std::uint64_t size = num_or(e, "size", 0x10000000, where);
    std::uint64_t root = num_or(e, "root_offset", 0, where);
    write_region(ctx, m, base, size, root, e);
    describe_firmware(ctx, e, m, base, size, root);
  }
}

}  // namespace pmukit::snapshot::spec
