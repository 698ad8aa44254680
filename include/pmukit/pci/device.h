// pmukit -- the PCI view of a machine: every device on every domain with its BARs, capabilities,
// NUMA node and upstream root port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/pci/capabilities.h"

namespace pmukit {
class Machine;
}  // namespace pmukit

namespace pmukit::pci {

struct Bar {
  int index = 0;
  std::uint64_t base = 0;
  std::uint64_t size = 0;  // 0 when unknown (dump files)
  bool io = false;
  bool mem64 = false;
  bool prefetchable = false;
};

struct Device {
  Bdf bdf;
  std::uint16_t vendor_id = 0xffff;
  std::uint16_t device_id = 0xffff;
  std::uint32_t class_code = 0;  // class << 16 | subclass << 8 | prog-if
  std::uint8_t revision = 0;
  std::uint8_t header_type = 0;  // without the multi-function bit
  int numa_node = -1;
  unsigned config_size = 0;  // readable bytes
  bool is_pcie = false;
  std::optional<std::uint8_t> port_type;                       // PCIe device/port type
  std::optional<std::uint8_t> secondary_bus, subordinate_bus;  // bridges
  std::vector<Bar> bars;
  std::vector<Capability> caps;
  std::optional<Bdf> root_port;  // the root port above this device; itself for a root port
  std::vector<std::string> warnings;

  bool is_root_port() const { return port_type == 4; }
  bool is_bridge() const { return header_type == 1; }
  std::vector<const Capability*> find_ext(std::uint16_t id) const;
  const Capability* find_dvsec(std::uint16_t vendor, std::uint16_t id) const;
  const Capability* find_vsec(std::uint16_t vendor, std::uint16_t id) const;
};

// lspci-style selection, parsed and matched by libpci's own filter functions: devices that do not
// match are left out of the result (but still used for topology).
struct ScanOptions {
  std::vector<std::string> slots;  // -s [[[[domain]:]bus]:][slot][.[func]]
  std::vector<std::string> ids;    // -d [vendor]:[device][:class]
};

// Scans every device the machine's PCI access method sees, sorted by BDF. Throws UsageError naming
// a bad field of a selection before anything is read.
std::vector<Device> scan(Machine& machine, const ScanOptions& options = {});

// lspci's words beside a device, from the pci.ids database through libpci ("Ethernet controller",
// "Intel Corporation Device 09a7"), and how libpci reaches config space ("linux-sysfs", "dump").
std::string class_name(Machine& machine, std::uint32_t class_code);
std::string vendor_device_name(Machine& machine, std::uint16_t vendor, std::uint16_t device);
std::string access_method(Machine& machine);
// Whether libpci sees no device at all (a dump file with no lspci -x output in it reads so).
bool no_devices(Machine& machine);

// Fills Device::root_port from bridge bus ranges (works for dump files, which have no sysfs links).
void resolve_root_ports(std::vector<Device>& devices);

}  // namespace pmukit::pci
