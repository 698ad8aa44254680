// pmukit -- PCI/PCIe configuration-space registers pmukit reads (PCI Local Bus 3.0, PCIe Base 6.0).
// Offsets at column 0 with their width; fields indented beneath, as pciutils' header.h does.
#pragma once

#include <cstdint>

namespace pmukit::pci::regs {

constexpr unsigned kCommandStatus = 0x04;                 // 32 bits: command [15:0], status [31:16]
constexpr std::uint32_t kStatusCapList = 1u << (16 + 4);  // status bit 4: capability list present
constexpr unsigned kHeaderType = 0x0e;                    // 8 bits (dword 0x0c, bits 23:16)
constexpr std::uint8_t kHeaderTypeMask = 0x7f;
constexpr std::uint8_t kHeaderMultiFunction = 0x80;
constexpr unsigned kBar0 = 0x10;                   // 6 x 32 bits for header type 0, 2 for type 1
constexpr unsigned kBusNumbers = 0x18;             // type 1: primary [7:0], secondary [15:8], subordinate [23:16]
constexpr unsigned kCapabilityList = 0x34;         // 8 bits, header types 0 and 1
constexpr unsigned kCardbusCapabilityList = 0x14;  // header type 2

// Standard capability header: id [7:0], next [15:8]; pointers are dword aligned.
constexpr std::uint8_t kCapIdPcie = 0x10;
constexpr std::uint8_t kCapIdVendor = 0x09;
//   PCIe Capabilities register (cap + 2): version [3:0], device/port type [7:4]
constexpr unsigned kStdCapFirst = 0x40;
constexpr unsigned kStdCapMaxHops = (0x100 - 0x40) / 4;  // 48 distinct dword-aligned slots

// Extended capability header: id [15:0], version [19:16], next [31:20]; starts at 0x100.
constexpr unsigned kExtCapFirst = 0x100;
constexpr unsigned kExtCapLast = 0xffc;
constexpr unsigned kExtCapMaxHops = (0x1000 - 0x100) / 4;  // 960
constexpr std::uint16_t kExtCapIdVsec = 0x0b;              // Vendor-Specific Extended Capability
constexpr std::uint16_t kExtCapIdDvsec = 0x23;             // Designated Vendor-Specific Extended Capability
//   VSEC  +4: VSEC ID [15:0], rev [19:16], length [31:20]
//   DVSEC +4: DVSEC vendor [15:0], rev [19:16], length [31:20]; +8: DVSEC ID [15:0]

// PCIe device/port types (PCIe Capabilities register bits 7:4).
enum class PortType : std::uint8_t {
  Endpoint = 0x0,
  LegacyEndpoint = 0x1,
  RootPort = 0x4,
  UpstreamSwitchPort = 0x5,
  DownstreamSwitchPort = 0x6,
  PcieToPciBridge = 0x7,
  PciToPcieBridge = 0x8,
  RcIntegratedEndpoint = 0x9,
  RcEventCollector = 0xa,
};

}  // namespace pmukit::pci::regs
