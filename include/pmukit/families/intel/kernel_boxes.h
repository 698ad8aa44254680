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

// A box count read from config registers: the set bits of (dword & mask) over the registers, in
// the first function of this device ID (skx_count_chabox: CAPID6, device 0x2083, offset 0x9c, bits
// 27:0; icx_count_chabox: CAPID6 and CAPID7, device 0x345b, offsets 0x9c and 0xa0, all 64 bits).
struct KernelCountRegister {
  unsigned offset = 0;
  std::uint32_t mask = 0;
};
struct KernelBoxCount {
  std::uint16_t device_id = 0;
  std::vector<KernelCountRegister> registers;
};

// Where an MMIO box is (the kernel's __snr_uncore_mmio_init_box, icx_uncore_imc_init_box): box b is
// channel b % channels of memory controller b / channels. The controller's window is read from the
// config space of the device ID's function on the box's socket: ((dword at base_offset & base_mask)
// << base_shift) | ((dword at mem_offset + mem_stride * controller & mem_mask) << mem_shift); the box
// control is box_ctl + channel_stride * channel past it, and the kernel maps map_size bytes there.
struct KernelMmio {
  std::uint16_t device_id = 0;
  unsigned base_offset = 0;
  std::uint32_t base_mask = 0;
  unsigned base_shift = 0;
  unsigned mem_offset = 0;
  std::uint32_t mem_mask = 0;
  unsigned mem_shift = 0;
  unsigned mem_stride = 0;
  unsigned channels = 1;
  std::uint64_t channel_stride = 0;
  std::uint64_t map_size = 0;
};

enum class KernelAccess { Msr, Pci, Mmio };

struct KernelBoxes {
  std::string source;                       // the kernel struct: "skx_uncore_imc"
  KernelAccess access = KernelAccess::Msr;  // MSRs, config space of `functions`, or `mmio`
  std::uint64_t box_ctl = 0;                // box 0's box control (MSR, config offset, or offset in the MMIO window)
  std::uint64_t ctl = 0;                    // box 0's first counter control (event_ctl)
  std::uint64_t ctr = 0;                    // box 0's first counter (perf_ctr)
  unsigned ctl_step = 1;                    // between counter controls (PCI: 4, 8 with UNCORE_BOX_FLAG_CTL_OFFS8)
  unsigned ctr_step = 1;                    // between counters (PCI: 8)
  std::uint64_t box_stride = 0;             // MSR boxes: between boxes (msr_offset)
  std::vector<std::uint64_t> box_offsets;   // MSR boxes: box b's offset (msr_offsets[b]) instead of a stride
  unsigned counters = 0;                    // num_counters
  unsigned width = 48;                      // perf_ctr_bits
  unsigned boxes = 0;                       // MSR and MMIO boxes: num_boxes
  std::optional<KernelBoxCount> count;      // MSR boxes: num_boxes read from the machine instead
  std::optional<std::uint64_t> fixed_ctl, fixed_ctr;  // the fixed counter (IMC DRAM clocks)
  std::vector<KernelPciBox> functions;                // PCI boxes
  std::optional<KernelMmio> mmio;                     // MMIO boxes

  // MSR boxes: how far box b's MSRs are from box 0's (msr_offsets[b], or msr_offset * b).
  std::uint64_t msr_shift(unsigned b) const { return box_offsets.empty() ? box_stride * b : box_offsets[b]; }

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
