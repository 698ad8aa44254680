// pmukit -- loading and querying the Arm CMN platform data (platforms/arm/cmn.json).
#include "pmukit/families/cmn/cmn_data.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"
#include "pmukit/util/json_fields.h"
#include "pmukit/util/text.h"

namespace pmukit::platform {

namespace {

using json = nlohmann::json;

std::uint16_t u16(const json& j, const std::string& where) {
  auto v = json_number(j, where);
  if (v > 0xffff) throw Error(fmt::format("{}: {} does not fit 16 bits", where, v));
  return static_cast<std::uint16_t>(v);
}

CmnFirmwareId firmware_id(const json& f, const std::string& where) {
  CmnFirmwareId id;
  id.acpi_hid = json_string(f, "acpi", where, false);
  id.dt_compatible = json_string(f, "devicetree", where, false);
  if (id.acpi_hid.empty() == id.dt_compatible.empty())
    throw Error(where + ": a firmware entry names exactly one of acpi or devicetree");
  id.part = u16(f.at("part"), where + " part");
  id.root_node = json_string(f, "root_node", where, false);
  if (!id.root_node.empty() && id.root_node != "second_resource" && id.root_node != "arm,root-node")
    throw Error(fmt::format("{}: root_node '{}' is neither second_resource nor arm,root-node", where, id.root_node));
  return id;
}

CmnPart part(const json& p, const std::string& where) {
  CmnPart c;
  c.part = u16(p.at("part"), where + " part");
  c.name = json_string(p, "name", where);
  std::string w = where + " part " + c.name;
  for (const auto& s : p.value("same_as", json::array())) c.same_as.push_back(u16(s, w + " same_as"));
  for (const auto& r : p.at("revisions")) c.revisions.push_back(r.get<std::string>());
  c.child_offset_bits = static_cast<unsigned>(json_number(p.at("child_offset_bits"), w));
  if (c.child_offset_bits < 16 || c.child_offset_bits > 30)
    throw Error(fmt::format("{}: child_offset_bits {} is outside 16..30", w, c.child_offset_bits));
  c.connect_info_ports = static_cast<unsigned>(json_number(p.at("connect_info_ports"), w));
  if (c.connect_info_ports > 6) throw Error(w + ": an XP has at most 6 ports");
  if (p.contains("high_ports_shift")) c.high_ports_shift = json_number(p["high_ports_shift"], w);
  if (p.contains("dtc_domain_register")) c.dtc_domain_register = json_number(p["dtc_domain_register"], w);
  c.node_size = json_number(p.at("node_size"), w + " node_size");
  if (c.node_size < 0x4000 || (c.node_size & (c.node_size - 1)))
    throw Error(w + ": node_size must be a power of two of at least 16 KiB");
  c.xp_port_count = p.value("xp_port_count", false);
  if (p.contains("port_info_stride")) c.port_info_stride = json_number(p["port_info_stride"], w + " port_info_stride");
  const json& values = p.contains("register_values") ? p["register_values"] : json::object();
  for (const auto& [type, regs] : values.items()) {
    if (type == "about") continue;
    for (const auto& [off, value] : regs.items()) {
      const std::string rw = fmt::format("{} register_values {} {}", w, type, off);
      c.register_values[type][json_number(json(off), rw)] = json_number(value, rw);
    }
  }
  c.note = json_string(p, "note", w, false);
  return c;
}

std::string squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '-' && c != '_' && c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string CmnPart::revision_name(unsigned rev) const {
  return rev < revisions.size() ? revisions[rev] : fmt::format("revision {}", rev);
}

const CmnPart* CmnData::part(std::uint16_t number) const {
  for (const auto& p : parts) {
    if (p.part == number) return &p;
    for (auto s : p.same_as)
      if (s == number) return &p;
  }
  return nullptr;
}

const CmnNodeType* CmnData::node_type(std::uint16_t type) const {
  for (const auto& t : node_types)
    if (t.type == type) return &t;
  return nullptr;
}

std::string CmnData::type_name(std::uint16_t type) const {
  const auto* t = node_type(type);
  return t ? t->name : fmt::format("type {:#x}", type);
}

std::string CmnData::device_type_name(std::uint8_t code) const {
  auto it = device_types.find(code);
  return it == device_types.end() ? fmt::format("dev {:#x}", code) : it->second;
}

std::vector<std::uint16_t> CmnData::types_named(std::string_view word) const {
  std::vector<std::uint16_t> out;
  if (auto n = parse_u64(word)) {
    if (*n <= 0xffff) out.push_back(static_cast<std::uint16_t>(*n));
    return out;
  }
  std::string w = squash(word);
  for (const auto& t : node_types) {
    bool hit = squash(t.name) == w;
    for (const auto& a : t.aliases) hit = hit || squash(a) == w;
    if (hit) out.push_back(t.type);
  }
  return out;
}

void load_cmn_data(const json& c, const std::string& where, std::optional<CmnData>& out) {
  if (out) throw Error(where + ": the CMN table is defined twice");
  CmnData d;
  for (const auto& f : c.at("firmware")) d.firmware.push_back(firmware_id(f, where + " cmn firmware"));
  d.pmu_name = json_string(c, "pmu_name", where + " cmn");
  for (const auto& p : c.at("parts")) d.parts.push_back(part(p, where + " cmn"));
  for (const auto& t : c.at("node_types")) {
    CmnNodeType n;
    n.type = u16(t.at("type"), where + " cmn node type");
    n.name = json_string(t, "name", where + " cmn node type");
    for (const auto& a : t.value("aliases", json::array())) n.aliases.push_back(a.get<std::string>());
    n.device = t.value("device", true);
    n.events = t.value("events", false);
    if (d.node_type(n.type)) throw Error(fmt::format("{}: cmn node type {:#x} listed twice", where, n.type));
    d.node_types.push_back(std::move(n));
  }
  for (const auto& [code, name] : c.at("device_types").items()) {
    auto v = json_number(json(code), where + " cmn device type");
    if (v > 0x3f) throw Error(fmt::format("{}: cmn device type {} is wider than 6 bits", where, code));
    d.device_types[static_cast<std::uint8_t>(v)] = name.get<std::string>();
  }
  for (const auto& f : d.firmware)
    if (!d.part(f.part)) throw Error(fmt::format("{}: cmn firmware entry names unknown part {:#x}", where, f.part));
  for (const auto& p : d.parts)
    for (const auto& entry : p.register_values) {  // (clang 14 cannot capture a structured binding)
      const std::string& type = entry.first;
      if (std::none_of(d.node_types.begin(), d.node_types.end(), [&](const auto& t) { return t.name == type; }))
        throw Error(fmt::format("{}: cmn part {} register_values names unknown node type '{}'", where, p.name, type));
    }
  out = std::move(d);
}

}  // namespace pmukit::platform
