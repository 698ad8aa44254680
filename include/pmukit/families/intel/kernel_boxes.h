// pmukit -- Intel uncore boxes of the Xeons before the PMON discovery tables (Skylake-SP, Cascade
// Lake, Ice Lake-SP): where their registers are, as the kernel's fixed tables give them (Linux
// arch/x86/events/intel/uncore_snbep.c, the skx_uncore_* and icx_uncore_* intel_uncore_type
// structs and their PCI ID tables), kept as data in platforms/intel/<model>.json ("kernel" of a box
// type, "pci_socket_map" of the file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pmukit::platform {

// One PCI function that holds a box (UNCORE_PCI_DEV_FULL_DATA(dev, func, type, idx)): the kernel
// takes a function of this device ID only at this device and function number.
struct KernelPciBox {
  std::uint16_t device_id = 0;
  unsigned dev = 0;
  unsigned fn = 0;
  unsigned box = 0;  // the box index (the N of uncore_<name>_N)
};

// A box count read from a config register: the set bits of (dword & mask) in the first function of
// this device ID (skx_count_chabox: CAPID6, device 0x2083, offset 0x9c, bits 27:0).
struct KernelBoxCount {
  std::uint16_t device_id = 0;
  unsigned offset = 0;
  std::uint32_t mask = 0;
};

struct KernelBoxes {
  std::string source;                   // the kernel struct: "skx_uncore_imc"
  bool pci = false;                     // config space of the functions in `functions`; else MSRs
  std::uint64_t box_ctl = 0;            // box 0's box control (MSR number, or config offset)
  std::uint64_t ctl = 0;                // box 0's first counter control (event_ctl)
  std::uint64_t ctr = 0;                // box 0's first counter (perf_ctr)
  unsigned ctl_step = 1;                // between counter controls (PCI: 4, 8 with UNCORE_BOX_FLAG_CTL_OFFS8)
  unsigned ctr_step = 1;                // between counters (PCI: 8)
  std::uint64_t box_stride = 0;         // MSR boxes: between boxes (msr_offset)
  unsigned counters = 0;                // num_counters
  unsigned width = 48;                  // perf_ctr_bits
  unsigned boxes = 0;                   // MSR boxes: num_boxes
  std::optional<KernelBoxCount> count;  // MSR boxes: num_boxes read from the machine instead
  std::optional<std::uint64_t> fixed_ctl, fixed_ctr;  // the fixed counter (IMC DRAM clocks)
  std::vector<KernelPciBox> functions;                // PCI boxes

  static KernelBoxes from_json(const nlohmann::json& j, const std::string& where);
};

// Which socket a PCI bus belongs to, as the kernel's snbep_pci2phy_map_init builds it: each UBOX
// function (device_id) reads its node ID (config nodeid_offset, bits 2:0) and the node ID map
// (idmap_offset, 3 bits per node); the node's index in the map is its package. Buses without a UBOX
// take the mapping of the nearest UBOX bus below them (above them when `reverse`).
struct PciSocketMap {
  std::uint16_t device_id = 0;
  unsigned nodeid_offset = 0;
  unsigned idmap_offset = 0;
  bool reverse = false;
  std::string source;

  static PciSocketMap from_json(const nlohmann::json& j, const std::string& where);
};

}  // namespace pmukit::platform
