// pmukit -- capability and port-type names, as lspci prints them.
#include <fmt/format.h>

#include "pmukit/pci/capabilities.h"

namespace pmukit::pci {

namespace {
struct Name {
  std::uint16_t id;
  const char* name;
};
// PCI Local Bus 3.0 / PCI Code and ID Assignment 1.11, standard capability IDs.
constexpr Name kStandard[] = {
    {0x01, "Power Management"},
    {0x02, "AGP"},
    {0x03, "Vital Product Data"},
    {0x04, "Slot ID"},
    {0x05, "MSI"},
    {0x06, "CompactPCI hot-swap"},
    {0x07, "PCI-X"},
    {0x08, "HyperTransport"},
    {0x09, "Vendor Specific Information"},
    {0x0a, "Debug port"},
    {0x0b, "CompactPCI central resource control"},
    {0x0c, "Hot-plug capable"},
    {0x0d, "Subsystem"},
    {0x0e, "AGP3"},
    {0x0f, "Secure device"},
    {0x10, "Express"},
    {0x11, "MSI-X"},
    {0x12, "SATA HBA"},
    {0x13, "PCI Advanced Features"},
    {0x14, "Enhanced Allocation"},
    {0x15, "Flattening Portal Bridge"},
};
// PCI Code and ID Assignment 1.11, extended capability IDs.
constexpr Name kExtended[] = {
    {0x01, "Advanced Error Reporting"},
    {0x02, "Virtual Channel"},
    {0x03, "Device Serial Number"},
    {0x04, "Power Budgeting"},
    {0x05, "Root Complex Link"},
    {0x06, "Root Complex Internal Link"},
    {0x07, "Root Complex Event Collector Endpoint Association"},
    {0x08, "Multi-Function Virtual Channel"},
    {0x09, "Virtual Channel"},
    {0x0a, "Root Complex Register Block"},
    {0x0b, "Vendor Specific Information"},
    {0x0c, "Config Access Correlation"},
    {0x0d, "Access Control Services"},
    {0x0e, "Alternative Routing-ID Interpretation (ARI)"},
    {0x0f, "Address Translation Service (ATS)"},
    {0x10, "Single Root I/O Virtualization (SR-IOV)"},
    {0x11, "Multi-Root I/O Virtualization (MR-IOV)"},
    {0x12, "Multicast"},
    {0x13, "Page Request Interface (PRI)"},
    {0x15, "Physical Resizable BAR"},
    {0x16, "Dynamic Power Allocation"},
    {0x17, "Transaction Processing Hints"},
    {0x18, "Latency Tolerance Reporting"},
    {0x19, "Secondary PCI Express"},
    {0x1a, "Protocol Multiplexing"},
    {0x1b, "Process Address Space ID (PASID)"},
    {0x1c, "LN Requester"},
    {0x1d, "Downstream Port Containment"},
    {0x1e, "L1 PM Substates"},
    {0x1f, "Precision Time Measurement"},
    {0x20, "PCI Express over M_PHY"},
    {0x21, "FRS Queueing"},
    {0x22, "Readiness Time Reporting"},
    {0x23, "Designated Vendor-Specific"},
    {0x24, "VF Resizable BAR"},
    {0x25, "Data Link Feature"},
    {0x26, "Physical Layer 16.0 GT/s"},
    {0x27, "Lane Margining at the Receiver"},
    {0x28, "Hierarchy ID"},
    {0x29, "Native PCIe Enclosure Management"},
    {0x2a, "Physical Layer 32.0 GT/s"},
    {0x2b, "Alternate Protocol"},
    {0x2c, "System Firmware Intermediary"},
    {0x2d, "Shadow Functions"},
    {0x2e, "Data Object Exchange"},
};
constexpr const char* kPortTypes[] = {
    "Endpoint",
    "Legacy Endpoint",
    nullptr,
    nullptr,
    "Root Port",
    "Upstream Port",
    "Downstream Port",
    "PCI-Express to PCI/PCI-X Bridge",
    "PCI/PCI-X to PCI-Express Bridge",
    "Root Complex Integrated Endpoint",
    "Root Complex Event Collector",
};
}  // namespace

std::string capability_name(CapKind kind, std::uint16_t id) {
  if (kind == CapKind::Standard) {
    for (const auto& n : kStandard)
      if (n.id == id) return n.name;
    return fmt::format("Capability {:#04x}", id);
  }
  for (const auto& n : kExtended)
    if (n.id == id) return n.name;
  return fmt::format("Extended Capability ID {:#x}", id);
}

std::string port_type_name(std::uint8_t type) {
  if (type < std::size(kPortTypes) && kPortTypes[type]) return kPortTypes[type];
  return fmt::format("Unknown type {}", type);
}

}  // namespace pmukit::pci
