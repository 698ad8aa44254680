// pmukit -- configuration-space images for snapshots.
#include "pmukit/snapshot/config_image.h"

#include "pmukit/pci/pci_regs.h"
#include "pmukit/util/error.h"

namespace pmukit::snapshot {

ConfigImage::ConfigImage(std::uint16_t vendor, std::uint16_t device, std::uint32_t class_code,
                         std::uint8_t header_type) {
  w16(0x00, vendor);
  w16(0x02, device);
  w8(0x09, static_cast<std::uint8_t>(class_code));
  w8(0x0a, static_cast<std::uint8_t>(class_code >> 8));
  w8(0x0b, static_cast<std::uint8_t>(class_code >> 16));
  w8(0x0e, header_type);
  w16(0x04, 0x0006);  // Memory space + bus master enabled
}

void ConfigImage::w16(unsigned off, std::uint16_t v) {
  w8(off, static_cast<std::uint8_t>(v));
  w8(off + 1, static_cast<std::uint8_t>(v >> 8));
}

void ConfigImage::w32(unsigned off, std::uint32_t v) {
  w16(off, static_cast<std::uint16_t>(v));
  w16(off + 2, static_cast<std::uint16_t>(v >> 16));
}

std::uint32_t ConfigImage::r32(unsigned off) const {
  return static_cast<std::uint32_t>(bytes.at(off)) | static_cast<std::uint32_t>(bytes.at(off + 1)) << 8 |
         static_cast<std::uint32_t>(bytes.at(off + 2)) << 16 | static_cast<std::uint32_t>(bytes.at(off + 3)) << 24;
}

void ConfigImage::fill(unsigned off, std::initializer_list<std::uint8_t> data) {
  for (std::uint8_t b : data) w8(off++, b);
}

void ConfigImage::set_memory_bar(int index, std::uint64_t base, bool mem64, bool prefetchable) {
  unsigned reg = pci::regs::kBar0 + 4u * static_cast<unsigned>(index);
  std::uint32_t low = static_cast<std::uint32_t>(base & ~0xfull) | (mem64 ? 0x4u : 0u) | (prefetchable ? 0x8u : 0u);
  w32(reg, low);
  if (mem64) w32(reg + 4, static_cast<std::uint32_t>(base >> 32));
}

void ConfigImage::set_bus_numbers(std::uint8_t primary, std::uint8_t secondary, std::uint8_t subordinate) {
  w8(0x18, primary);
  w8(0x19, secondary);
  w8(0x1a, subordinate);
}

void ConfigImage::add_std_cap(std::uint8_t offset, std::uint8_t id, std::initializer_list<std::uint8_t> body) {
  if (offset < 0x40 || offset % 4) throw Error("ConfigImage: standard capability offset must be >= 0x40 and aligned");
  w8(offset, id);
  w8(offset + 1u, 0);
  fill(offset + 2u, body);
  if (last_std_)
    w8(last_std_ + 1u, offset);
  else {
    w8(pci::regs::kCapabilityList, offset);
    w16(0x06, static_cast<std::uint16_t>(bytes[0x06] | bytes[0x07] << 8 | 0x10));  // Status.CapList
  }
  last_std_ = offset;
}

void ConfigImage::add_pcie_cap(std::uint8_t offset, std::uint8_t port_type) {
  add_std_cap(offset, pci::regs::kCapIdPcie, {static_cast<std::uint8_t>(0x02 | port_type << 4), 0x00});
}

void ConfigImage::add_ext_cap(std::uint16_t offset, std::uint16_t id, std::uint8_t version) {
  if (offset < 0x100 || offset > 0xffc || offset % 4) throw Error("ConfigImage: bad extended capability offset");
  if (!last_ext_ && offset != 0x100) throw Error("ConfigImage: the first extended capability must be at 0x100");
  w32(offset, static_cast<std::uint32_t>(id) | static_cast<std::uint32_t>(version & 0xf) << 16);
  if (last_ext_) set_ext_next(last_ext_, offset);
  last_ext_ = offset;
}

void ConfigImage::set_ext_next(std::uint16_t cap_offset, std::uint16_t next) {
  w32(cap_offset, (r32(cap_offset) & 0x000fffffu) | static_cast<std::uint32_t>(next) << 20);
}

void ConfigImage::add_vsec(std::uint16_t offset, std::uint16_t vsec_id, std::uint8_t rev, std::uint16_t len) {
  add_ext_cap(offset, pci::regs::kExtCapIdVsec, 1);
  w32(offset + 4u,
      vsec_id | static_cast<std::uint32_t>(rev & 0xf) << 16 | static_cast<std::uint32_t>(len & 0xfff) << 20);
}

void ConfigImage::add_dvsec(std::uint16_t offset, std::uint16_t vendor, std::uint16_t dvsec_id, std::uint8_t rev,
                            std::uint16_t len) {
  add_ext_cap(offset, pci::regs::kExtCapIdDvsec, 1);
  w32(offset + 4u,
      vendor | static_cast<std::uint32_t>(rev & 0xf) << 16 | static_cast<std::uint32_t>(len & 0xfff) << 20);
  w32(offset + 8u, dvsec_id);
}

}  // namespace pmukit::snapshot
