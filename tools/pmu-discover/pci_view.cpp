// pmu-discover -- rendering of the PCI view. The JSON schema is documented in docs/json.md.
#include "pci_view.h"

#include <fmt/format.h>

#include "pmukit/util/text.h"

namespace pmukit::tools {

namespace {

std::string size_text(std::uint64_t size) {
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (size >= 1024 && size % 1024 == 0 && u < 4) size /= 1024, ++u;
  return fmt::format("{}{}", size, units[u]);
}

std::string bar_line(const pci::Bar& b) {
  if (b.io)
    return fmt::format("Region {}: I/O ports at {:x}{}", b.index, b.base,
                       b.size ? fmt::format(" [size={}]", size_text(b.size)) : "");
  return fmt::format("Region {}: Memory at {:x} ({}, {}){}", b.index, b.base, b.mem64 ? "64-bit" : "32-bit",
                     b.prefetchable ? "prefetchable" : "non-prefetchable",
                     b.size ? fmt::format(" [size={}]", size_text(b.size)) : "");
}

const char* kind_name(pci::CapKind k) {
  return k == pci::CapKind::Standard ? "standard" : "extended";
}

}  // namespace

std::string capability_line(const pci::Capability& c) {
  std::string where = c.kind == pci::CapKind::Standard ? fmt::format("[{:x}]", c.offset)
                                                       : fmt::format("[{:x} v{}]", c.offset, c.version);
  if (c.dvsec)
    return fmt::format("{} DVSEC Vendor={:04x} ID={:04x} Rev={} Len={}", where, c.dvsec->vendor, c.dvsec->id,
                       c.dvsec->rev, c.dvsec->length);
  if (c.vsec) return fmt::format("{} VSEC ID={:04x} Rev={} Len={:03x}", where, c.vsec->id, c.vsec->rev, c.vsec->length);
  std::string name = pci::capability_name(c.kind, c.id);
  if (c.pcie_port_type)
    return fmt::format("{} {} (v{}) {}", where, name, *c.pcie_version, pci::port_type_name(*c.pcie_port_type));
  return fmt::format("{} {}", where, name);
}

void print_pci_text(Machine& machine, const std::vector<pci::Device>& devices, bool verbose) {
  for (const auto& d : devices) {
    std::string cls = pci::class_name(machine, d.class_code);
    if (!cls.ends_with("]")) cls += fmt::format(" [{:04x}]", d.class_code >> 8);  // lspci -nn style
    fmt::print("{} {}: {} [{:04x}:{:04x}]", d.bdf.str(), cls,
               pci::vendor_device_name(machine, d.vendor_id, d.device_id), d.vendor_id, d.device_id);
    if (d.revision) fmt::print(" (rev {:02x})", d.revision);
    fmt::print("\n");
    if (d.numa_node >= 0) fmt::print("\tNUMA node: {}\n", d.numa_node);
    if (d.root_port && *d.root_port != d.bdf) fmt::print("\tRoot port: {}\n", d.root_port->str());
    if (d.secondary_bus)
      fmt::print("\tBus: secondary={:02x}, subordinate={:02x}\n", *d.secondary_bus, *d.subordinate_bus);
    for (const auto& b : d.bars) fmt::print("\t{}\n", bar_line(b));
    for (const auto& c : d.caps) fmt::print("\tCapabilities: {}\n", capability_line(c));
    if (verbose || d.caps.empty())
      for (const auto& w : d.warnings) fmt::print("\tWarning: {}\n", w);
    fmt::print("\n");
  }
}

nlohmann::ordered_json device_json(const pci::Device& d) {
  nlohmann::ordered_json j;
  j["bdf"] = d.bdf.str();
  j["domain"] = d.bdf.domain;
  j["bus"] = d.bdf.bus;
  j["device"] = d.bdf.dev;
  j["function"] = d.bdf.fn;
  j["vendor_id"] = d.vendor_id;
  j["device_id"] = d.device_id;
  j["class"] = d.class_code;
  j["revision"] = d.revision;
  j["header_type"] = d.header_type;
  j["numa_node"] = d.numa_node;
  j["config_size"] = d.config_size;
  j["pcie"] = d.is_pcie;
  j["port_type"] = d.port_type ? nlohmann::ordered_json(pci::port_type_name(*d.port_type)) : nullptr;
  j["root_port"] = d.root_port ? nlohmann::ordered_json(d.root_port->str()) : nullptr;
  if (d.secondary_bus) {
    j["secondary_bus"] = *d.secondary_bus;
    j["subordinate_bus"] = *d.subordinate_bus;
  }
  auto& bars = j["bars"] = nlohmann::ordered_json::array();
  for (const auto& b : d.bars)
    bars.push_back({{"index", b.index},
                    {"type", b.io      ? "io"
                             : b.mem64 ? "mem64"
                                       : "mem32"},
                    {"base", hex(b.base)},
                    {"size", b.size},
                    {"prefetchable", b.prefetchable}});
  auto& caps = j["capabilities"] = nlohmann::ordered_json::array();
  for (const auto& c : d.caps) {
    nlohmann::ordered_json cj{
        {"kind", kind_name(c.kind)}, {"offset", c.offset}, {"id", c.id}, {"name", pci::capability_name(c.kind, c.id)}};
    if (c.kind == pci::CapKind::Extended) cj["version"] = c.version;
    if (c.pcie_port_type) cj["port_type"] = pci::port_type_name(*c.pcie_port_type);
    for (auto [key, vh] : {std::pair{"vsec", c.vsec}, std::pair{"dvsec", c.dvsec}})
      if (vh) cj[key] = {{"vendor", vh->vendor}, {"id", vh->id}, {"rev", vh->rev}, {"length", vh->length}};
    caps.push_back(std::move(cj));
  }
  j["warnings"] = d.warnings;
  return j;
}

void print_pci_json(const nlohmann::ordered_json& head, const std::vector<pci::Device>& devices, std::FILE* out) {
  // head.dump(2) is "{\n  ...\n}": reopened after its last member for "devices".
  std::string text = head.dump(2);
  text.resize(text.size() - 2);
  text += devices.empty() ? ",\n  \"devices\": []" : ",\n  \"devices\": [";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    text += i ? ",\n    " : "\n    ";
    // One device at a time, at the depth dump(2) gives an element of "devices" (two levels: four
    // spaces more on every line; a JSON string holds no raw newline).
    for (char c : device_json(devices[i]).dump(2)) {
      text += c;
      if (c == '\n') text += "    ";
    }
    std::fwrite(text.data(), 1, text.size(), out);
    text.clear();
  }
  text += devices.empty() ? "\n}\n" : "\n  ]\n}\n";
  std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace pmukit::tools
