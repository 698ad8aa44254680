// pmukit -- loading the SoC sections of platforms/ (CoreSight, NVIDIA, DesignWare).
#include "pmukit/platform/soc_data.h"

#include <algorithm>
#include <span>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/families/tegra410/tegra410_regs.h"
#include "pmukit/util/error.h"
#include "pmukit/util/json_fields.h"
#include "pmukit/util/text.h"

namespace pmukit::platform {

namespace {

using json = nlohmann::json;

// A PCI vendor ID as platform data names one: 0x0000 and 0xffff are what config space reads where
// there is no device, so an entry holding them would match absence.
std::uint16_t pci_vendor(const json& j, const std::string& where) {
  auto v = json_number(j, where);
  if (v == 0 || v >= 0xffff) throw Error(fmt::format("{}: {:#x} is not a PCI vendor ID", where, v));
  return static_cast<std::uint16_t>(v);
}

// `listed`: one of an implementer's products, which is matched by its PMIIDR and so must have one.
CoreSightProduct product(const json& j, const std::string& where, bool listed) {
  CoreSightProduct p;
  if (listed && !j.contains("pmiidr")) throw Error(where + ": a listed product needs its pmiidr");
  if (j.contains("pmiidr")) p.pmiidr = static_cast<std::uint32_t>(json_number(j["pmiidr"], where + " pmiidr"));
  p.product = json_string(j, "product", where);
  p.type_name = json_string(j, "type", where);
  p.name_pattern = json_string(j, "name", where);
  p.pmu_kind = json_string(j, "pmu", where);
  p.note = json_string(j, "note", where, false);
  return p;
}

void load_coresight(const json& c, const std::string& where, SocData& out) {
  if (out.coresight) throw Error(where + ": the CoreSight table is defined twice");
  CoreSightTable t;
  t.implementer_mask = static_cast<std::uint32_t>(json_number(c.at("implementer_mask"), where + " implementer_mask"));
  for (const auto& i : c.at("implementers")) {
    CoreSightImplementer impl;
    std::string w = fmt::format("{} implementer {}", where, i.value("name", "?"));
    impl.implementer = static_cast<std::uint16_t>(json_number(i.at("implementer"), w));
    if (impl.implementer == 0 || (impl.implementer & ~t.implementer_mask) != 0)
      throw Error(
          fmt::format("{}: implementer {:#x} is not a JEP106 code under implementer_mask", w, impl.implementer));
    impl.name = json_string(i, "name", w);
    impl.kernel_module = json_string(i, "kernel_module", w);
    impl.product_mask = static_cast<std::uint32_t>(json_number(i.at("product_mask"), w + " product_mask"));
    for (const auto& p : i.at("products"))
      impl.products.push_back(product(p, w + " product " + p.value("product", "?"), true));
    impl.other = product(i.at("other"), w + " other", false);
    t.implementers.push_back(std::move(impl));
  }
  const json& g = c.at("generic");
  t.generic = product(g, where + " generic", false);
  t.generic_acpi_pattern = json_string(g, "acpi_name", where + " generic");
  t.generic_module = json_string(g, "kernel_module", where + " generic");
  const json jep106 = c.value("jep106", json::object());
  for (const auto& [code, name] : jep106.items())
    t.jep106[static_cast<std::uint16_t>(json_number(json(code), where + " jep106"))] = name.get<std::string>();
  out.coresight = std::move(t);
}

void load_rc_map(const json& m, const std::string& where, SocData& out) {
  RcMapScheme s;
  s.name = json_string(m, "name", where);
  std::string w = where + " rc map " + s.name;
  s.method = json_string(m, "method", w);
  if (s.method == "dvsec") {
    s.dvsec_vendor = pci_vendor(m.at("dvsec_vendor"), w + " dvsec_vendor");
    s.dvsec_id = static_cast<std::uint16_t>(json_number(m.at("dvsec_id"), w));
    for (const char* k : {"bus", "segment", "rp", "rc", "socket"})
      s.bytes[k] = static_cast<unsigned>(json_number(m.at("bytes").at(k), w + " bytes " + k));
  } else if (s.method == "domain") {
    s.vendor = pci_vendor(m.at("vendor"), w + " vendor");
    for (const auto& d : m.at("root_port_devices"))
      s.root_port_devices.push_back(static_cast<std::uint16_t>(json_number(d, w)));
    s.socket_shift = static_cast<unsigned>(json_number(m.at("socket_shift"), w));
    s.rp_mask = static_cast<std::uint32_t>(json_number(m.at("rp_mask"), w));
    s.max_rp = static_cast<unsigned>(json_number(m.at("max_rp"), w));
  } else {
    throw Error(fmt::format("{}: method '{}' is neither dvsec nor domain", w, s.method));
  }
  for (const auto& p : m.at("pmus"))
    s.pmus.push_back({json_string(p, "name", w), json_string(p, "rp_term", w), json_string(p, "bdf_terms", w, false),
                      json_string(p, "example_event", w, false)});
  out.rc_maps.push_back(std::move(s));
}

void load_t410_block(const json& b, const std::string& where, SocData& out) {
  T410Block t;
  t.hid = json_string(b, "hid", where);
  if (t.hid.empty()) throw Error(where + ": a t410 block needs a non-empty hid");
  std::string w = where + " block " + t.hid;
  t.interface = json_string(b, "interface", w);
  t.family = json_string(b, "family", w);
  if (t.family != "t410-c2c" && t.family != "t410-cmem-latency")
    throw Error(fmt::format("{}: family '{}' is neither t410-c2c nor t410-cmem-latency", w, t.family));
  t.instances = static_cast<unsigned>(json_number(b.at("instances"), w));
  t.name_pattern = json_string(b, "name", w);
  t.pmu_kind = json_string(b, "pmu", w);
  t.peer = json_string(b, "peer", w, false);
  t.counters = static_cast<unsigned>(json_number(b.at("counters"), w));
  t.width = static_cast<unsigned>(json_number(b.at("width"), w));
  // The JSON names the registers this interface has; their offsets are the register map's.
  const auto& map = t.family == "t410-c2c" ? std::span<const regs::t410::NamedRegister>(regs::t410::kC2cRegisters)
                                           : std::span<const regs::t410::NamedRegister>(regs::t410::kCmemRegisters);
  for (const auto& name : b.at("registers")) {
    auto n = name.get<std::string>();
    auto it = std::find_if(map.begin(), map.end(), [&](const auto& r) { return r.name == n; });
    if (it == map.end()) throw Error(fmt::format("{}: register '{}' is not a {} register", w, n, t.family));
    t.registers.emplace_back(n, it->offset);
  }
  out.t410_blocks.push_back(std::move(t));
}

void load_dwc(const json& d, const std::string& where, SocData& out) {
  if (out.dwc) throw Error(where + ": the DesignWare RAS DES entry is defined twice");
  DwcRasDes r;
  r.vsec_id = static_cast<std::uint16_t>(json_number(d.at("vsec_id"), where));
  r.vsec_rev = static_cast<std::uint8_t>(json_number(d.at("vsec_rev"), where));
  r.name_pattern = json_string(d, "name", where);
  if (d.contains("aliases"))
    for (const auto& a : d["aliases"])
      r.aliases.push_back({json_string(a, "name", where), a.value("hardware_units", false)});
  r.pmu_kind = json_string(d, "pmu", where);
  for (const auto& v : d.at("vendors"))
    r.vendors[pci_vendor(v.at("vendor"), where + " vendor")] = json_string(v, "name", where);
  for (const auto& g : d.at("event_groups")) r.event_groups.push_back(g.get<std::string>());
  out.dwc = std::move(r);
}

}  // namespace

void load_soc_data(const json& doc, const std::string& where, SocData& out) {
  if (doc.contains("coresight")) load_coresight(doc["coresight"], where, out);
  if (doc.contains("pcie_rc_maps"))
    for (const auto& m : doc["pcie_rc_maps"]) load_rc_map(m, where, out);
  if (doc.contains("t410_blocks"))
    for (const auto& b : doc["t410_blocks"]) load_t410_block(b, where, out);
  if (doc.contains("designware_rasdes")) load_dwc(doc["designware_rasdes"], where, out);
  if (doc.contains("cmn")) load_cmn_data(doc["cmn"], where, out.cmn);
}

std::vector<std::pair<std::string, std::string>> soc_pmu_references(const SocData& d) {
  std::vector<std::pair<std::string, std::string>> refs;
  if (d.coresight) {
    for (const auto& i : d.coresight->implementers) {
      for (const auto& p : i.products) refs.emplace_back("coresight product " + p.product, p.pmu_kind);
      refs.emplace_back("coresight product " + i.other.product, i.other.pmu_kind);
    }
    refs.emplace_back("coresight generic", d.coresight->generic.pmu_kind);
  }
  for (const auto& b : d.t410_blocks) refs.emplace_back("t410 block " + b.hid, b.pmu_kind);
  if (d.dwc) refs.emplace_back("designware rasdes", d.dwc->pmu_kind);
  return refs;
}

CoreSightTable::Match CoreSightTable::match(std::uint32_t pmiidr) const {
  if (pmiidr == 0) return {nullptr, &generic, false};  // no identity at all: no vendor's table
  for (const auto& impl : implementers) {
    if ((pmiidr & implementer_mask) != impl.implementer) continue;
    for (const auto& p : impl.products)
      if ((pmiidr & impl.product_mask) == (p.pmiidr & impl.product_mask)) return {&impl, &p, true};
    return {&impl, &impl.other, false};
  }
  return {nullptr, &generic, false};
}

std::string CoreSightTable::implementer_name(std::uint16_t code) const {
  auto it = jep106.find(code);
  return it == jep106.end() ? fmt::format("JEP106 {:#05x}", code) : it->second;
}

std::string expand_pattern(std::string_view pattern, const std::map<std::string, std::string>& values) {
  std::string out;
  std::size_t i = 0;
  while (i < pattern.size()) {
    auto open = pattern.find('{', i);
    if (open == std::string_view::npos) break;
    auto close = pattern.find('}', open);
    if (close == std::string_view::npos) break;
    out.append(pattern.substr(i, open - i));
    auto it = values.find(std::string(pattern.substr(open + 1, close - open - 1)));
    out.append(it != values.end() ? it->second : std::string(pattern.substr(open, close - open + 1)));
    i = close + 1;
  }
  out.append(pattern.substr(i));
  return out;
}

}  // namespace pmukit::platform
