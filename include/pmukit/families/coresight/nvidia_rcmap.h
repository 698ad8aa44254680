// pmukit -- PCIe device -> NVIDIA PCIe PMU instance and filter.
//
// Tegra410: every root port has a DVSEC (vendor 10de, ID 4) holding bus, segment, RP#, RC# and
// socket# (nvidia-tegra410-pmu.rst); the PCIE PMU nvidia_pcie_pmu_<socket>_rc_<rc> counts traffic
// from its root ports (src_rp_mask) or one BDF (src_bdf), the PCIE-TGT PMU traffic to them
// (dst_rp_mask). Grace: no DVSEC; one PCIe PMU per socket filtering by root port; the socket and
// root port are derived from the PCI domain as the Grace guide's example shows, and labelled so.
// Scheme details (offsets, PMU name patterns, filter terms) come from platforms/nvidia/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pci/device.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// Mappings of every device that carries one, sorted by BDF: vendor devices with the RC-mapping
// DVSEC (whatever their type, as the guide's script lists them) and Grace root ports. Unreadable or
// short DVSECs become warnings naming the BDF and offset.
std::vector<RootPortMap> map_root_ports(Machine& machine, const std::vector<pci::Device>& devices,
                                        std::vector<std::string>& warnings);

struct PmuFilter {
  std::string pmu;      // nvidia_pcie_pmu_0_rc_1
  std::string terms;    // src_bdf=0x0100,src_bdf_en=1
  std::string scope;    // what the filter selects
  std::string example;  // a perf event using it
};

struct DeviceRcMap {
  Bdf device;
  std::string kind;  // "root port", "endpoint", ...
  std::optional<Bdf> root_port;
  const RootPortMap* map = nullptr;  // null: no mapping (error says why)
  std::vector<PmuFilter> filters;
  std::string error;
};

// How `device` is seen by the NVIDIA PCIe PMUs, given the mappings of map_root_ports().
DeviceRcMap map_device(const pci::Device& device, const std::vector<RootPortMap>& maps);

}  // namespace pmukit::discovery
