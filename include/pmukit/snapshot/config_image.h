// pmukit -- a 4 KiB configuration-space image with helpers that lay out headers, BARs and
// capability chains the way hardware does. Tests and synthetic machines build devices with it.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace pmukit::snapshot {

class ConfigImage {
 public:
  ConfigImage(std::uint16_t vendor, std::uint16_t device, std::uint32_t class_code, std::uint8_t header_type = 0);

  std::array<std::uint8_t, 4096> bytes{};

  void w8(unsigned off, std::uint8_t v) { bytes.at(off) = v; }
  void w16(unsigned off, std::uint16_t v);
  void w32(unsigned off, std::uint32_t v);
  std::uint32_t r32(unsigned off) const;
  void fill(unsigned off, std::initializer_list<std::uint8_t> data);

  void set_revision(std::uint8_t rev) { w8(0x08, rev); }
  // Memory BAR register(s); a 64-bit BAR takes two registers.
  void set_memory_bar(int index, std::uint64_t base, bool mem64, bool prefetchable);
  void set_bus_numbers(std::uint8_t primary, std::uint8_t secondary, std::uint8_t subordinate);

  // Standard capabilities are linked in call order from 0x34; `body` follows the 2-byte header.
  void add_std_cap(std::uint8_t offset, std::uint8_t id, std::initializer_list<std::uint8_t> body = {});
  // PCI Express capability (id 0x10, version 2) with the given device/port type.
  void add_pcie_cap(std::uint8_t offset, std::uint8_t port_type);
  // Extended capabilities are linked in call order from 0x100 (the first must be at 0x100).
  void add_ext_cap(std::uint16_t offset, std::uint16_t id, std::uint8_t version);
  // VSEC (0x0b): +4 = id | rev << 16 | len << 20.
  void add_vsec(std::uint16_t offset, std::uint16_t vsec_id, std::uint8_t rev, std::uint16_t len);
  // DVSEC (0x23): +4 = vendor | rev << 16 | len << 20, +8 = DVSEC id.
  void add_dvsec(std::uint16_t offset, std::uint16_t vendor, std::uint16_t dvsec_id, std::uint8_t rev,
                 std::uint16_t len);

  // Raw link fix-ups for broken-chain tests.
  void set_std_next(std::uint8_t cap_offset, std::uint8_t next) { w8(cap_offset + 1u, next); }
  void set_ext_next(std::uint16_t cap_offset, std::uint16_t next);

 private:
  std::uint8_t last_std_ = 0;
  std::uint16_t last_ext_ = 0;
};

}  // namespace pmukit::snapshot
