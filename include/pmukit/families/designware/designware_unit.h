// pmukit -- a DesignWare PCIe root port with the RAS DES capability: where its counters are in
// config space.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

struct DwcRegister {
  std::string name;
  std::uint16_t offset = 0;  // absolute config-space offset (VSEC start + register offset)
};

struct DwcUnit {
  Bdf root_port;
  std::uint16_t vendor = 0;
  std::string vendor_name;
  std::uint16_t device = 0;
  std::uint16_t vsec_offset = 0;  // RAS DES VSEC in config space; registers are relative to it
  std::uint16_t vsec_length = 0;
  std::uint8_t vsec_rev = 0;
  std::uint32_t sbdf = 0;  // domain << 16 | bus << 8 | devfn
  unsigned lanes = 0;      // Link Capabilities max width, 0 when unreadable
  std::vector<DwcRegister> registers;
  std::vector<std::string> event_groups;

  static const Family& family();  // the family these details belong to
};

}  // namespace pmukit::discovery
