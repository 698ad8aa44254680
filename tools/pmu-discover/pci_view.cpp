// pmu-discover -- rendering of the PCI view. The JSON schema is documented in docs/json.md.
#include "pci_view.h"

#include <unordered_map>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "pmukit/util/text.h"

namespace pmukit::tools {

namespace {

// Appends to `out`; the text view passes formats parsed at compile time (FMT_COMPILE), as it
// formats a dozen lines per device.
template <typename Format, typename... Args>
void append(std::string& out, const Format& format, const Args&... args) {
  fmt::format_to(std::back_inserter(out), format, args...);
}

void append_size(std::string& out, std::uint64_t size) {
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (size >= 1024 && size % 1024 == 0 && u < 4) size /= 1024, ++u;
  append(out, FMT_COMPILE(" [size={}{}]"), size, units[u]);
}

void append_bar_line(std::string& out, const pci::Bar& b) {
  if (b.io)
    append(out, FMT_COMPILE("Region {}: I/O ports at {:x}"), b.index, b.base);
  else
    append(out, FMT_COMPILE("Region {}: Memory at {:x} ({}, {})"), b.index, b.base, b.mem64 ? "64-bit" : "32-bit",
           b.prefetchable ? "prefetchable" : "non-prefetchable");
  if (b.size) append_size(out, b.size);
}

void append_capability_line(std::string& out, const pci::Capability& c) {
  if (c.kind == pci::CapKind::Standard)
    append(out, FMT_COMPILE("[{:x}]"), c.offset);
  else
    append(out, FMT_COMPILE("[{:x} v{}]"), c.offset, c.version);
  if (c.dvsec) {
    append(out, FMT_COMPILE(" DVSEC Vendor={:04x} ID={:04x} Rev={} Len={}"), c.dvsec->vendor, c.dvsec->id, c.dvsec->rev,
           c.dvsec->length);
  } else if (c.vsec) {
    append(out, FMT_COMPILE(" VSEC ID={:04x} Rev={} Len={:03x}"), c.vsec->id, c.vsec->rev, c.vsec->length);
  } else {
    out += ' ';
    out += pci::capability_name(c.kind, c.id);
    if (c.pcie_port_type)
      append(out, FMT_COMPILE(" (v{}) {}"), *c.pcie_version, pci::port_type_name(*c.pcie_port_type));
  }
}

}  // namespace

void print_pci_text(Machine& machine, const std::vector<pci::Device>& devices, bool verbose) {
  // One buffer, written every 64 KiB.
  std::string out;
  std::unordered_map<std::uint32_t, std::string> class_names;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    // A machine has a few dozen classes: each named once (pci.ids lookups were 4% of the view).
    auto [named, fresh] = class_names.try_emplace(d.class_code);
    if (fresh) {
      named->second = pci::class_name(machine, d.class_code);
      if (!named->second.ends_with("]"))
        append(named->second, FMT_COMPILE(" [{:04x}]"), d.class_code >> 8);  // lspci -nn style
    }
    const std::string& cls = named->second;
    append(out, FMT_COMPILE("{} {}: {} [{:04x}:{:04x}]"), d.bdf.str(), cls,
           pci::vendor_device_name(machine, d.vendor_id, d.device_id), d.vendor_id, d.device_id);
    if (d.revision) append(out, FMT_COMPILE(" (rev {:02x})"), d.revision);
    out += '\n';
    if (d.numa_node >= 0) append(out, FMT_COMPILE("\tNUMA node: {}\n"), d.numa_node);
    if (d.root_port && *d.root_port != d.bdf) append(out, FMT_COMPILE("\tRoot port: {}\n"), d.root_port->str());
    if (d.secondary_bus)
      append(out, FMT_COMPILE("\tBus: secondary={:02x}, subordinate={:02x}\n"), *d.secondary_bus, *d.subordinate_bus);
    for (const auto& b : d.bars) {
      out += '\t';
      append_bar_line(out, b);
      out += '\n';
    }
    for (const auto& c : d.caps) {
      out += "\tCapabilities: ";
      append_capability_line(out, c);
      out += '\n';
    }
    if (verbose || d.caps.empty())
      for (const auto& w : d.warnings) append(out, FMT_COMPILE("\tWarning: {}\n"), w);
    out += '\n';
    if (out.size() >= 64 * 1024 || i + 1 == devices.size()) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
}

}  // namespace pmukit::tools
