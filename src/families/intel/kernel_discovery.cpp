// pmukit -- Intel uncore boxes from the kernel's fixed tables (Skylake-SP, Cascade Lake, Ice Lake-SP).
//
// MSR boxes are on every socket at the table's MSRs (box b at box_ctl + msr_offset * b, or + msr_offsets[b]
// where the kernel lists them: Ice Lake-SP's CHA, IIO, IRP, M2PCIe), reached through a CPU of the socket;
// their count is the table's, or the set bits of config registers (skx_count_chabox: CAPID6 of device
// 0x2083; icx_count_chabox: CAPID6 and CAPID7 of 0x345b; read from the first such function, as the
// kernel does). PCI boxes are the functions of the listed device IDs at the listed device and function
// numbers (uncore_pci_probe matches UNCORE_PCI_DEV_DEV/FUNC), on the socket of their bus: the kernel's
// snbep_pci2phy_map_init map from the UBOX functions' node ID registers, or the function's NUMA node when
// there is no UBOX. MMIO boxes (Ice Lake-SP's IMC channels) are where __snr_uncore_mmio_init_box finds
// them: a window read from the config space of the socket's memory controller function, the channel's
// box control past it; placed only where nothing contradicts it, as the discovery tables' MMIO boxes.
#include "kernel_discovery.h"

#include <array>
#include <bit>
#include <map>

#include <fmt/format.h>

#include "intel_clash.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/region_proof.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"

namespace pmukit::discovery {

namespace {

constexpr std::uint16_t kIntel = 0x8086;
constexpr std::uint64_t kPhysLimit = 1ull << 52;               // architectural physical address width
using BusMap = std::map<std::uint32_t, std::array<int, 256>>;  // domain -> bus -> socket (-1: unknown)

// snbep_pci2phy_map_init: the UBOX's node ID (bits 2:0) found in the node ID map (3 bits a node)
// gives its package; every other bus takes the nearest UBOX bus's below it (above when reverse).
BusMap bus_sockets(Machine& machine, const std::vector<pci::Device>& devices, const platform::PciSocketMap& m,
                   std::vector<std::string>& warnings) {
  BusMap map;
  for (const auto& d : devices) {
    if (d.vendor_id != kIntel || d.device_id != m.device_id) continue;
    auto& cfg = machine.pci().config(d.bdf);
    auto nodeid = cfg.read32(m.nodeid_offset), idmap = cfg.read32(m.idmap_offset);
    if (!nodeid || !idmap) {
      warnings.push_back(fmt::format("{} (UBOX): node ID registers unreadable: its bus has no socket", d.bdf.str()));
      continue;
    }
    auto [it, added] = map.try_emplace(d.bdf.domain);
    if (added) it->second.fill(-1);
    for (int i = 0; i < 8; ++i)
      if ((*nodeid & 0x7) == (*idmap >> (3 * i) & 0x7)) {
        it->second[d.bdf.bus] = i;
        break;
      }
  }
  for (auto& [domain, buses] : map) {
    int last = -1;
    for (int k = 0; k < 256; ++k) {
      int& s = buses[static_cast<std::size_t>(m.reverse ? 255 - k : k)];
      if (s >= 0)
        last = s;
      else
        s = last;
    }
  }
  return map;
}

int socket_of(const pci::Device& d, const BusMap& map, const Topology& topo) {
  if (auto it = map.find(d.bdf.domain); it != map.end() && it->second[d.bdf.bus] >= 0) return it->second[d.bdf.bus];
  if (auto s = d.numa_node >= 0 ? topo.socket_of_node(d.numa_node) : std::nullopt) return *s;
  return -1;
}

// skx_count_chabox / icx_count_chabox: hweight of (dword & mask) over the registers of the first
// function of the device ID; 0 without one.
unsigned counted_boxes(Machine& machine, const std::vector<pci::Device>& devices, const platform::KernelBoxCount& c) {
  for (const auto& d : devices) {
    if (d.vendor_id != kIntel || d.device_id != c.device_id) continue;
    unsigned n = 0;
    for (const auto& r : c.registers)
      if (auto v = machine.pci().config(d.bdf).read32(r.offset)) n += static_cast<unsigned>(std::popcount(*v & r.mask));
    return n;
  }
  return 0;
}

struct Context {
  Machine& machine;
  const std::vector<pci::Device>& devices;
  const Topology& topo;
  Inventory& inv;
  std::map<int, std::size_t> table_of_socket;  // socket -> index into inv.intel_tables
  std::optional<acpi::Iomem> iomem;            // read for the first MMIO box
  std::vector<Bdf> intel_functions;            // whose BARs an Intel box's registers may be in
};

std::size_t table_for(Context& c, int socket, const platform::IntelUncore& p) {
  auto [it, added] = c.table_of_socket.try_emplace(socket, c.inv.intel_tables.size());
  if (added) {
    IntelTable t;
    t.origin = "kernel";
    t.source = fmt::format("kernel tables ({}, Linux uncore_snbep.c)", p.name);
    t.socket = socket;
    t.die = 0;
    t.socket_source =
        p.pci_socket_map ? fmt::format("package; PCI buses by {}", p.pci_socket_map->source) : std::string("package");
    c.inv.intel_tables.push_back(t);
  }
  return it->second;
}

// The box's registers: box 0's, `shift` away (MSR boxes: msr_offset * box or msr_offsets[box]; PCI: 0;
// MMIO: the window and the channel's place in it).
void fill_registers(const platform::KernelBoxes& k, IntelUnit& iu, std::uint64_t shift) {
  iu.rules = BoxRules::Snbep;
  iu.ctl_step = k.ctl_step;
  iu.ctr_step = k.ctr_step;
  iu.box_ctl = k.box_ctl + shift;
  // The record's offsets from the box control, where they are above it (M2M's and UPI's are below).
  iu.ctl_offset = static_cast<unsigned>(k.ctl > k.box_ctl ? k.ctl - k.box_ctl : 0);
  iu.ctr_offset = static_cast<unsigned>(k.ctr > k.box_ctl ? k.ctr - k.box_ctl : 0);
  for (unsigned i = 0; i < k.counters; ++i) {
    iu.ctl.push_back(k.ctl + shift + std::uint64_t{k.ctl_step} * i);
    iu.ctr.push_back(k.ctr + shift + std::uint64_t{k.ctr_step} * i);
  }
  if (k.fixed_ctl && k.fixed_ctr) iu.fixed_ctl = *k.fixed_ctl + shift, iu.fixed_ctr = *k.fixed_ctr + shift;
}

// A unit of the box type whose registers fill_registers placed.
void add_unit(Context& c, const platform::IntelBoxType& bt, IntelUnit iu, int socket, const platform::IntelUncore& p) {
  const auto& k = *bt.kernel;
  iu.type = bt.type;
  iu.counter_constraints = bt.constraints;
  iu.table = table_for(c, socket, p);
  auto& table = c.inv.intel_tables[iu.table];
  iu.table_index = table.valid_units++;
  PmuUnit pu;
  pu.type_name = bt.name;
  pu.pmu_kind = bt.pmu_kind;
  pu.socket = socket;
  pu.die = 0;
  pu.num_counters = k.counters;
  pu.counter_width = k.width;
  pu.set_detail(std::move(iu));
  c.inv.units.push_back(std::move(pu));
}

// How many boxes each MSR box type has (the table's, or counted from config registers), or why
// none: icx_uncore_cpu_init's WARN_ON when a count exceeds msr_offsets[], after which the kernel
// registers none of the model's MSR box types.
std::map<std::uint16_t, unsigned> msr_box_counts(Context& c, const platform::IntelUncore& p) {
  std::map<std::uint16_t, unsigned> n;
  for (const auto& [type, bt] : p.box_types) {
    if (!bt.kernel || bt.kernel->access != platform::KernelAccess::Msr) continue;
    const auto& k = *bt.kernel;
    n[type] = k.count ? counted_boxes(c.machine, c.devices, *k.count) : k.boxes;
    if (k.count && n[type] == 0)
      c.inv.warnings.push_back(
          fmt::format("{}: no {:04x} function to count the boxes from: none listed", k.source, k.count->device_id));
  }
  for (const auto& [type, bt] : p.box_types) {
    const auto& k = bt.kernel;
    if (!k || k->box_offsets.empty() || !n.contains(type) || n[type] <= k->box_offsets.size()) continue;
    c.inv.warnings.push_back(fmt::format("{}: {} boxes counted but the kernel lists MSR offsets for {}: no MSR box "
                                         "listed (Linux registers none)",
                                         k->source, n[type], k->box_offsets.size()));
    return {};
  }
  return n;
}

void add_msr_boxes(Context& c, const platform::IntelBoxType& bt, unsigned n, const platform::IntelUncore& p) {
  const auto& k = *bt.kernel;
  for (int socket : c.topo.packages()) {
    const int cpu = c.topo.first_cpu(socket);
    for (unsigned b = 0; b < n; ++b) {
      IntelUnit iu;
      iu.access = RegAccess::Msr;
      iu.box_id = static_cast<std::uint16_t>(b);
      iu.msr_cpu = cpu;
      fill_registers(k, iu, k.msr_shift(b));
      if (bt.filter) set_filter(*bt.filter, b, iu);  // skx_cha_hw_config's reg1
      add_unit(c, bt, std::move(iu), socket, p);
    }
  }
}

void add_pci_boxes(Context& c, const platform::IntelBoxType& bt, const BusMap& buses, const platform::IntelUncore& p) {
  const auto& k = *bt.kernel;
  for (const auto& f : k.functions)
    for (const auto& d : c.devices) {
      if (d.vendor_id != kIntel || d.device_id != f.device_id || d.bdf.dev != f.dev || d.bdf.fn != f.fn) continue;
      const int socket = socket_of(d, buses, c.topo);
      if (socket < 0) {
        c.inv.warnings.push_back(
            fmt::format("{} ({} box {}): no socket for its bus: skipped", d.bdf.str(), bt.name, f.box));
        continue;
      }
      IntelUnit iu;
      iu.access = RegAccess::PciConfig;
      iu.box_id = static_cast<std::uint16_t>(f.box);
      iu.pci_device = d.bdf;
      fill_registers(k, iu, 0);
      add_unit(c, bt, std::move(iu), socket, p);
    }
}

// __snr_uncore_mmio_init_box: the memory controller's window, from its function's config space.
std::optional<std::uint64_t> mmio_window(Machine& machine, const Bdf& bdf, const platform::KernelMmio& m,
                                         unsigned controller) {
  auto& cfg = machine.pci().config(bdf);
  auto base = cfg.read32(m.base_offset), mem = cfg.read32(m.mem_offset + m.mem_stride * controller);
  if (!base || !mem) return std::nullopt;
  return (std::uint64_t{*base & m.base_mask} << m.base_shift) | (std::uint64_t{*mem & m.mem_mask} << m.mem_shift);
}

// Why the MMIO box's registers may not be used: outside the physical address space or the kernel's
// map of the box (uncore_mmio_is_valid_offset), misaligned (32-bit controls, 64-bit counters: writel,
// readq), or where the kernel says something else is (a PCI BAR not an Intel function's, System RAM,
// the first MiB); nullopt when nothing contradicts them.
std::optional<std::string> mmio_refusal(Context& c, const platform::KernelMmio& m, const IntelUnit& iu) {
  std::uint64_t first = iu.box_ctl, end = iu.box_ctl + 4;
  bool aligned = iu.box_ctl % 4 == 0;
  auto span = [&](std::uint64_t at, unsigned bytes) {
    first = std::min(first, at), end = std::max(end, at + bytes), aligned = aligned && at % bytes == 0;
  };
  for (auto a : iu.ctl) span(a, 4);
  for (auto a : iu.ctr) span(a, 8);
  if (iu.fixed_ctl) span(*iu.fixed_ctl, 4);
  if (iu.fixed_ctr) span(*iu.fixed_ctr, 8);
  if (end > kPhysLimit || first < iu.box_ctl)
    return fmt::format("registers {:#x}..{:#x} are outside the physical address space", first, end - 1);
  if (end - iu.box_ctl > m.map_size)
    return fmt::format("registers run {:#x} bytes past the box control, beyond the {:#x} the kernel maps",
                       end - iu.box_ctl, m.map_size);
  if (!aligned) return fmt::format("registers at {:#x} are not aligned for 32-bit controls and 64-bit counters", first);
  if (!c.iomem) c.iomem = acpi::read_iomem(c.machine);
  if (auto why = contradicted_region(c.machine, *c.iomem, first, end - first, c.intel_functions))
    return fmt::format("registers {:#x}..{:#x} not proven: {}", first, end - 1, *why);
  auto& mem = c.machine.memory();
  if (mem.find_bar(first, 1) && !mem.find_bar(first, end - first))
    return fmt::format("registers {:#x}..{:#x} straddle the end of a PCI BAR", first, end - 1);
  intel::ClashContext clash;
  clash.iomem = &*c.iomem;
  if (auto why = intel::register_clash(iu, clash); !why.empty()) return why;
  return std::nullopt;
}

// Box b is channel b % channels of memory controller b / channels, on each socket whose memory
// controller function (the first of the device ID on that socket, snr_uncore_get_mc_dev) gives a window.
void add_mmio_boxes(Context& c, const platform::IntelBoxType& bt, const BusMap& buses, const platform::IntelUncore& p) {
  const auto& k = *bt.kernel;
  const auto& m = *k.mmio;
  std::map<int, Bdf> controller_of_socket;
  for (const auto& d : c.devices)
    if (d.vendor_id == kIntel && d.device_id == m.device_id)
      if (int s = socket_of(d, buses, c.topo); s >= 0) controller_of_socket.try_emplace(s, d.bdf);
  for (const auto& [socket, bdf] : controller_of_socket)
    for (unsigned b = 0; b < k.boxes; ++b) {
      const unsigned channel = b % m.channels;
      auto window = mmio_window(c.machine, bdf, m, b / m.channels);
      if (!window) {
        c.inv.warnings.push_back(
            fmt::format("{} ({} box {}): window registers unreadable: skipped", bdf.str(), bt.name, b));
        continue;
      }
      IntelUnit iu;
      iu.access = RegAccess::Mmio;
      iu.box_id = static_cast<std::uint16_t>(b);
      fill_registers(k, iu, *window + m.channel_stride * channel);
      if (auto why = mmio_refusal(c, m, iu)) {
        c.inv.warnings.push_back(fmt::format("{} box {} (window of {}): skipped: {}", k.source, b, bdf.str(), *why));
        continue;
      }
      add_unit(c, bt, std::move(iu), socket, p);
    }
  if (controller_of_socket.empty())
    c.inv.warnings.push_back(fmt::format(
        "{}: no {:04x} function on any socket to find the boxes' MMIO from: none listed", k.source, m.device_id));
}

}  // namespace

void discover_kernel_boxes(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                           const platform::IntelUncore& platform, Inventory& inventory) {
  Context c{machine, devices, topology, inventory, {}, std::nullopt, {}};
  for (const auto& d : devices)
    if (d.vendor_id == kIntel) c.intel_functions.push_back(d.bdf);
  BusMap buses;
  if (platform.pci_socket_map) buses = bus_sockets(machine, devices, *platform.pci_socket_map, inventory.warnings);
  const auto msr_boxes = msr_box_counts(c, platform);
  for (const auto& [type, bt] : platform.box_types) {
    if (!bt.kernel) continue;
    switch (bt.kernel->access) {
    case platform::KernelAccess::Pci:
      add_pci_boxes(c, bt, buses, platform);
      break;
    case platform::KernelAccess::Mmio:
      add_mmio_boxes(c, bt, buses, platform);
      break;
    case platform::KernelAccess::Msr:
      if (auto it = msr_boxes.find(type); it != msr_boxes.end()) add_msr_boxes(c, bt, it->second, platform);
      break;
    }
  }
}

}  // namespace pmukit::discovery
