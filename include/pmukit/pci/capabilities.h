// pmukit -- the capability walk: two short guarded loops, as pciutils' caps.c.
//
// Standard list: only when Status.CapList is set; pointers masked to dwords; stops on a pointer
// inside the header (< 0x40), id 0xff, a revisited offset or 48 hops. Extended list: only for
// PCIe devices with 4096 bytes of config space; starts at 0x100; stops on a header of 0 or
// 0xffffffff, a next pointer outside 0x100..0xffc, a revisited offset or 960 hops. Every stop that
// is not a normal end adds a warning naming the BDF and offset.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"

namespace pmukit {
class PciConfig;
}

namespace pmukit::pci {

enum class CapKind { Standard, Extended };

// A VSEC or DVSEC header. For a VSEC `vendor` is the device's own vendor ID: VSEC IDs are
// allocated by each vendor, so an ID means nothing without it.
struct VendorHeader {
  std::uint16_t vendor = 0;
  std::uint16_t id = 0;
  std::uint8_t rev = 0;
  std::uint16_t length = 0;
};

struct Capability {
  CapKind kind = CapKind::Standard;
  std::uint16_t id = 0;
  std::uint16_t offset = 0;
  std::uint8_t version = 0;                    // extended capabilities only
  std::optional<VendorHeader> vsec;            // extended id 0x0b
  std::optional<VendorHeader> dvsec;           // extended id 0x23
  std::optional<std::uint8_t> pcie_port_type;  // standard id 0x10: device/port type
  std::optional<std::uint8_t> pcie_version;    // standard id 0x10: capability version

  bool is_vsec(std::uint16_t vendor, std::uint16_t vsec_id) const {
    return vsec && vsec->vendor == vendor && vsec->id == vsec_id;
  }
  bool is_dvsec(std::uint16_t vendor, std::uint16_t dvsec_id) const {
    return dvsec && dvsec->vendor == vendor && dvsec->id == dvsec_id;
  }
};

struct WalkResult {
  std::vector<Capability> caps;
  std::vector<std::string> warnings;
  bool is_pcie = false;
};

// Walks both lists. `device_vendor` fills VendorHeader::vendor for VSECs. `header`: the first 64
// bytes when the caller has read them (the capability pointer is taken from there), else empty.
WalkResult walk_capabilities(PciConfig& config, std::uint8_t header_type, std::uint32_t command_status,
                             std::uint16_t device_vendor, std::span<const std::uint8_t> header = {});

// lspci's names: "Power Management", "Express", "Advanced Error Reporting", ...
std::string capability_name(CapKind kind, std::uint16_t id);
// "Root Port", "Endpoint", "Root Complex Integrated Endpoint", ...
std::string port_type_name(std::uint8_t type);

}  // namespace pmukit::pci
