// pmukit -- standard and extended capability walks with loop, range and hop guards.
#include "pmukit/pci/capabilities.h"

#include <bitset>

#include <fmt/format.h>

#include "pmukit/access/pci_access.h"
#include "pmukit/pci/pci_regs.h"

namespace pmukit::pci {

namespace {

void walk_standard(PciConfig& cfg, std::uint8_t header_type, std::span<const std::uint8_t> header, WalkResult& out) {
  const Bdf& bdf = cfg.bdf();
  unsigned list = (header_type & regs::kHeaderTypeMask) == 2 ? regs::kCardbusCapabilityList : regs::kCapabilityList;
  auto first = list < header.size() ? std::optional<std::uint8_t>(header[list]) : cfg.read8(list);
  if (!first) {
    out.warnings.push_back(fmt::format("{} @{:#x}: capability pointer unreadable", bdf.str(), list));
    return;
  }
  std::bitset<256> seen;
  unsigned where = *first & ~3u;  // bits 1:0 are reserved; software must mask them
  for (unsigned hops = 0; where; ++hops) {
    if (where < regs::kStdCapFirst) {
      out.warnings.push_back(
          fmt::format("{} @{:#x}: capability pointer {:#x} points into the header", bdf.str(), list, where));
      return;
    }
    if (seen[where] || hops >= regs::kStdCapMaxHops) {
      out.warnings.push_back(fmt::format("{} @{:#x}: capability list loops", bdf.str(), where));
      return;
    }
    seen[where] = true;
    auto dw = cfg.read32(where);
    if (!dw) {
      out.warnings.push_back(fmt::format("{} @{:#x}: capability unreadable", bdf.str(), where));
      return;
    }
    std::uint8_t id = *dw & 0xff;
    if (id == 0xff) {
      out.warnings.push_back(fmt::format("{} @{:#x}: capability chain broken (id 0xff)", bdf.str(), where));
      return;
    }
    Capability cap{CapKind::Standard, id, static_cast<std::uint16_t>(where)};
    if (id == regs::kCapIdPcie) {
      out.is_pcie = true;
      cap.pcie_version = (*dw >> 16) & 0xf;
      cap.pcie_port_type = (*dw >> 20) & 0xf;
    }
    out.caps.push_back(cap);
    where = (*dw >> 8) & 0xfc;
  }
}

void walk_extended(PciConfig& cfg, std::uint16_t device_vendor, WalkResult& out) {
  const Bdf& bdf = cfg.bdf();
  std::bitset<0x1000 / 4> seen;
  unsigned where = regs::kExtCapFirst;
  for (unsigned hops = 0;; ++hops) {
    if (seen[where / 4] || hops >= regs::kExtCapMaxHops) {
      out.warnings.push_back(fmt::format("{} @{:#x}: extended capability list loops", bdf.str(), where));
      return;
    }
    seen[where / 4] = true;
    auto header = cfg.read32(where);
    if (!header) {
      out.warnings.push_back(fmt::format("{} @{:#x}: extended capability unreadable", bdf.str(), where));
      return;
    }
    if (*header == 0 || *header == 0xffffffff) {
      // 0 at 0x100 means "no extended capabilities"; all-ones means the device did not answer.
      if (*header == 0xffffffff || where != regs::kExtCapFirst)
        out.warnings.push_back(
            fmt::format("{} @{:#x}: extended capability header {:#x} ends the list", bdf.str(), where, *header));
      return;
    }
    Capability cap{CapKind::Extended, static_cast<std::uint16_t>(*header & 0xffff), static_cast<std::uint16_t>(where),
                   static_cast<std::uint8_t>((*header >> 16) & 0xf)};
    if (cap.id == regs::kExtCapIdVsec || cap.id == regs::kExtCapIdDvsec) {
      auto h1 = cfg.read32(where + 4);
      auto h2 = cap.id == regs::kExtCapIdDvsec ? cfg.read32(where + 8) : std::optional<std::uint32_t>(0);
      if (h1 && h2) {
        VendorHeader vh{static_cast<std::uint16_t>(*h1 & 0xffff), static_cast<std::uint16_t>(*h1 & 0xffff),
                        static_cast<std::uint8_t>((*h1 >> 16) & 0xf), static_cast<std::uint16_t>(*h1 >> 20)};
        if (cap.id == regs::kExtCapIdVsec) {
          vh.vendor = device_vendor;
          cap.vsec = vh;
        } else {
          vh.id = static_cast<std::uint16_t>(*h2 & 0xffff);
          cap.dvsec = vh;
        }
      } else {
        out.warnings.push_back(fmt::format("{} @{:#x}: vendor-specific header unreadable", bdf.str(), where));
      }
    }
    out.caps.push_back(cap);
    unsigned next = *header >> 20;
    if (next == 0) return;
    if (next & 3u)
      out.warnings.push_back(
          fmt::format("{} @{:#x}: next pointer {:#x} has reserved bits set; masked", bdf.str(), where, next));
    next &= ~3u;
    if (next < regs::kExtCapFirst || next > regs::kExtCapLast) {
      out.warnings.push_back(fmt::format("{} @{:#x}: next pointer {:#x} outside 0x100..0xffc", bdf.str(), where, next));
      return;
    }
    where = next;
  }
}

}  // namespace

WalkResult walk_capabilities(PciConfig& config, std::uint8_t header_type, std::uint32_t command_status,
                             std::uint16_t device_vendor, std::span<const std::uint8_t> header) {
  WalkResult out;
  if (command_status & regs::kStatusCapList) walk_standard(config, header_type, header, out);
  // Extended capabilities exist only on PCIe devices whose full 4 KiB config space is readable
  // (a conventional device, like corpus broken-ecaps, aliases its first 256 bytes up there).
  if (out.is_pcie && config.size() >= 4096) walk_extended(config, device_vendor, out);
  return out;
}

}  // namespace pmukit::pci
