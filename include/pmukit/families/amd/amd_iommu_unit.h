// pmukit -- an AMD IOMMU's performance counters: the PCI function with the IOMMU capability, the
// MMIO base it gives, and the counter banks the counter configuration register reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pmukit/access/bdf.h"
#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

struct AmdIommuUnit {
  Bdf function;  // the IOMMU's PCI function (class 0806h)
  std::uint16_t vendor = 0, device = 0;
  std::uint16_t cap_offset = 0;  // the IOMMU capability (ID 0Fh) in config space
  std::uint32_t cap_header = 0;  // its first dword
  bool base_enabled = false;     // Base Address Low bit 0
  std::uint64_t mmio_base = 0;   // from Base Address Low/High; 0 when not enabled
  // What the MMIO region said, when it was read (only once it is proven the IOMMU's).
  bool region_proven = false;                 // one /proc/iomem range named amd_iommu covers it
  std::string region_source;                  // "/proc/iomem (amd_iommu)" or why the region is not used
  std::optional<std::uint64_t> ext_features;  // MMIO_EXT_FEATURES
  std::optional<std::uint32_t> cntr_conf;     // MMIO_CNTR_CONF_OFFSET
  bool pc_supported = false;                  // EFR PCSup
  unsigned banks = 0, counters = 0;           // per the counter configuration register: usable when both are non-zero

  bool usable() const { return region_proven && pc_supported && banks && counters; }
  static const Family& family();  // the family these details belong to
};

}  // namespace pmukit::discovery
