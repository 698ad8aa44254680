// pmukit -- encodes Intel uncore discovery tables (the inverse of discovery/intel_table.h), for
// synthetic machines and tests. Raw records can be injected to build broken tables on purpose.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace pmukit::snapshot {

struct IntelUnitRecord {
  std::uint16_t type = 0;
  std::uint16_t id = 0;
  unsigned access = 0;        // 0 MSR, 1 MMIO, 2 PCI, 3 unknown
  std::uint64_t box_ctl = 0;  // MSR number, physical address, or encoded PCI address
  unsigned num_regs = 4;
  unsigned ctl_offset = 0;
  unsigned bit_width = 48;
  unsigned ctr_offset = 0;
  unsigned status_offset = 0;
  std::optional<std::array<std::uint64_t, 3>> raw;  // written as-is when set
};

struct IntelTableRecord {
  unsigned stride_qwords = 4;         // unit records are stride * 8 bytes apart
  std::optional<unsigned> max_units;  // default: units.size()
  unsigned type = 0;
  unsigned access = 0;  // global access type
  std::uint64_t global_ctl = 0;
  unsigned status_offset = 0;
  unsigned num_status = 0;
  std::optional<std::array<std::uint64_t, 3>> raw_global;
  std::vector<IntelUnitRecord> units;
};

std::vector<std::uint8_t> encode_intel_table(const IntelTableRecord& table);

// The PCI-access box control encoding: domain [30:28], bus [27:20], devfn [19:12], offset [11:0].
std::uint64_t encode_pci_box_ctl(std::uint32_t domain, std::uint8_t bus, std::uint8_t devfn, std::uint16_t offset);

}  // namespace pmukit::snapshot
