// pmukit -- PCI scan: identity from libpci, header and capabilities from the guarded walk,
// root ports from bridge bus ranges.
#include "pmukit/pci/device.h"

#include <algorithm>
#include <array>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/pci/pci_regs.h"

namespace pmukit::pci {

std::vector<const Capability*> Device::find_ext(std::uint16_t id) const {
  std::vector<const Capability*> out;
  for (const auto& c : caps)
    if (c.kind == CapKind::Extended && c.id == id) out.push_back(&c);
  return out;
}

const Capability* Device::find_dvsec(std::uint16_t vendor, std::uint16_t id) const {
  for (const auto& c : caps)
    if (c.is_dvsec(vendor, id)) return &c;
  return nullptr;
}

const Capability* Device::find_vsec(std::uint16_t vendor, std::uint16_t id) const {
  for (const auto& c : caps)
    if (c.is_vsec(vendor, id)) return &c;
  return nullptr;
}

namespace {

// BAR layout: from sysfs IORESOURCE flags when libpci had them, else from the BAR register's
// low nibble that libpci keeps in base_addr (dump files).
std::vector<Bar> decode_bars(const PciDeviceInfo& info, std::uint8_t header_type) {
  std::vector<Bar> bars;
  int count = header_type == 0 ? 6 : header_type == 1 ? 2 : 1;
  for (int i = 0; i < count; ++i) {
    std::uint64_t raw = info.bar_base[i];
    std::uint64_t flags = info.bar_ioflags[i];
    Bar b{i};
    if (flags) {
      b.io = flags & 0x100;             // IORESOURCE_IO
      b.prefetchable = flags & 0x2000;  // IORESOURCE_PREFETCH
      b.mem64 = flags & 0x100000;       // IORESOURCE_MEM_64
    } else {
      b.io = raw & 1;
      b.mem64 = !b.io && ((raw >> 1) & 3) == 2;
      b.prefetchable = !b.io && (raw & 8);
    }
    b.base = raw & (b.io ? ~0x3ull : ~0xfull);
    b.size = info.bar_size[i];
    if (b.base == 0 && b.size == 0) continue;
    bars.push_back(b);
    if (b.mem64 && !flags) ++i;  // the upper half of a 64-bit BAR is not a BAR of its own
  }
  return bars;
}

Device read_device(PciAccess& pci, const PciDeviceInfo& info) {
  Device d;
  d.bdf = info.bdf;
  d.vendor_id = info.vendor_id;
  d.device_id = info.device_id;
  d.class_code = info.class_code;
  d.revision = info.revision;
  d.numa_node = info.numa_node;
  PciConfig& cfg = pci.config(info.bdf);
  d.config_size = cfg.size();
  if (d.config_size == 0) {
    d.warnings.push_back(fmt::format("{}: config space unreadable", info.bdf.str()));
    return d;
  }
  // The header in one read; the dwords of it needed one by one only when that fails.
  std::array<std::uint8_t, 64> header{};
  const bool have_header = cfg.read_header(header);
  auto header_dword = [&](unsigned offset) -> std::optional<std::uint32_t> {
    if (!have_header) return cfg.read32(offset);
    return static_cast<std::uint32_t>(header[offset]) | static_cast<std::uint32_t>(header[offset + 1]) << 8 |
           static_cast<std::uint32_t>(header[offset + 2]) << 16 | static_cast<std::uint32_t>(header[offset + 3]) << 24;
  };
  auto cmdsts = header_dword(regs::kCommandStatus);
  auto hdr = header_dword(0x0c);  // header type is byte 0x0e
  if (!cmdsts || !hdr) {
    d.warnings.push_back(fmt::format("{}: config header unreadable", info.bdf.str()));
    return d;
  }
  d.header_type = (*hdr >> 16) & regs::kHeaderTypeMask;
  d.bars = decode_bars(info, d.header_type);
  if (d.header_type == 1) {
    if (auto buses = header_dword(regs::kBusNumbers)) {
      d.secondary_bus = (*buses >> 8) & 0xff;
      d.subordinate_bus = (*buses >> 16) & 0xff;
    }
  }
  WalkResult walk =
      walk_capabilities(cfg, d.header_type, *cmdsts, d.vendor_id,
                        have_header ? std::span<const std::uint8_t>(header) : std::span<const std::uint8_t>());
  d.caps = std::move(walk.caps);
  d.is_pcie = walk.is_pcie;
  for (const auto& c : d.caps)
    if (c.pcie_port_type) d.port_type = c.pcie_port_type;
  d.warnings.insert(d.warnings.end(), walk.warnings.begin(), walk.warnings.end());
  if ((*cmdsts & regs::kStatusCapList) && d.caps.empty() && d.config_size <= 64)
    d.warnings.push_back(fmt::format("{}: capabilities present but only {} bytes of config space are "
                                     "readable (run as root)",
                                     info.bdf.str(), d.config_size));
  return d;
}

}  // namespace

// One pass to index each domain's 256 buses by the outermost root port whose bus range holds
// them, one to look every device up: O(devices + root ports x their bus span), not devices^2
// (1,280 devices cost 8M instructions compared pairwise).
void resolve_root_ports(std::vector<Device>& devices) {
  using BusOwners = std::array<const Device*, 256>;
  std::unordered_map<std::uint32_t, BusOwners> by_domain;
  auto span = [](const Device& b) { return *b.subordinate_bus - *b.secondary_bus; };
  for (const auto& b : devices) {
    if (!b.is_root_port() || !b.secondary_bus || !b.subordinate_bus) continue;
    auto [it, fresh] = by_domain.try_emplace(b.bdf.domain);
    if (fresh) it->second.fill(nullptr);
    for (unsigned bus = *b.secondary_bus; bus <= *b.subordinate_bus && bus < 256; ++bus) {
      const Device*& owner = it->second[bus];
      if (!owner || span(b) > span(*owner)) owner = &b;
    }
  }
  for (auto& d : devices) {
    if (d.is_root_port()) {
      d.root_port = d.bdf;
      continue;
    }
    auto it = by_domain.find(d.bdf.domain);
    if (it == by_domain.end()) continue;
    if (const Device* owner = it->second[d.bdf.bus]) d.root_port = owner->bdf;
  }
}

std::vector<Device> scan(Machine& machine, const ScanOptions& options) {
  PciFilter filter;
  for (const auto& s : options.slots) filter.set_slot(s);
  for (const auto& d : options.ids) filter.set_id(d);
  PciAccess& pci = machine.pci();
  std::vector<Device> all;
  all.reserve(pci.devices().size());
  for (const auto& info : pci.devices()) {
    all.push_back(read_device(pci, info));
    // libpci's warnings while filling and reading this device, and only those (its early
    // returns included).
    for (auto& w : pci.take_warnings(info.bdf))
      all.back().warnings.push_back(fmt::format("{}: libpci: {}", info.bdf.str(), w));
  }
  resolve_root_ports(all);
  if (options.slots.empty() && options.ids.empty()) return all;
  std::vector<Device> kept;
  for (auto& d : all)
    if (pci.matches(d.bdf, filter)) kept.push_back(std::move(d));
  return kept;
}

std::string class_name(Machine& machine, std::uint32_t class_code) {
  return machine.pci().class_name(class_code);
}

std::string vendor_device_name(Machine& machine, std::uint16_t vendor, std::uint16_t device) {
  return machine.pci().vendor_device_name(vendor, device);
}

std::string access_method(Machine& machine) {
  return std::string(machine.pci().method());
}

bool no_devices(Machine& machine) {
  return machine.pci().devices().empty();
}

}  // namespace pmukit::pci
