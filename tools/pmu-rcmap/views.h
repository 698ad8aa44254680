// pmu-rcmap -- the printers: NVIDIA RC mapping (nvidia_view.cpp), Intel IIO stacks
// (intel_view.cpp) and the lspci -t-like tree both can annotate (tree_view.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pmukit/discovery/kernel_pmus.h"
#include "pmukit/families/coresight/nvidia_rcmap.h"
#include "pmukit/families/intel/iio_devices.h"
#include "pmukit/pci/device.h"

namespace pmukit {
class Machine;
}

namespace pmukit::tools::rcmap {

// lspci's slot text: with domains once any device has a non-zero domain.
std::string slot(const Bdf& b, bool domains);
// lspci's name of a device from libpci's name database ("Samsung Electronics Co Ltd NVMe SSD...").
std::string device_name(Machine& machine, const pci::Device& d);

// ---- NVIDIA (Tegra410 DVSEC, Grace domains) ----
void print_guide_lines(const std::vector<discovery::RootPortMap>& maps, bool domains);
void print_nvidia_device(const discovery::DeviceRcMap& r, const pci::Device& d, const discovery::KernelPmus& kernel);
// Tree notes: a root port's RC#, RP# and PMU filter.
std::string nvidia_note(const pci::Device& d, const std::vector<discovery::RootPortMap>& maps);

// ---- Intel IIO ----
void print_iio_stacks(const discovery::IioTopology& t, const std::vector<discovery::IioDeviceMap>& maps);
void print_iio_device(const discovery::IioDeviceMap& r, const discovery::IioTopology& t, Machine& machine,
                      const pci::Device& d, const discovery::KernelPmus& kernel);
// Tree notes: the stack a root bus belongs to, and the part of the function a device hangs from.
std::string iio_bus_note(const discovery::IioTopology& t, const std::vector<discovery::IioDeviceMap>& maps,
                         std::uint32_t domain, std::uint8_t bus);
std::string iio_device_note(const discovery::IioDeviceMap& r);

// ---- the tree ----
struct TreeNotes {
  std::function<std::string(std::uint32_t domain, std::uint8_t bus)> bus;  // after "-[dddd:bb]-"
  std::function<std::string(const pci::Device&)> device;                   // after the name
};
// Every device, nested by bridge bus ranges below its root bus, as `lspci -tv` draws them.
void print_tree(const std::vector<pci::Device>& devices, Machine& machine, const TreeNotes& notes);

}  // namespace pmukit::tools::rcmap
