// pmukit -- Intel uncore boxes from the kernel's fixed tables (Skylake-SP, Cascade Lake).
//
// MSR boxes are on every socket at the table's MSRs (box b at box_ctl + msr_offset * b), reached
// through a CPU of the socket; their count is the table's, or the set bits of a config register
// (skx_count_chabox: CAPID6 of device 0x2083, read from the first such function, as the kernel
// does). PCI boxes are the functions of the listed device IDs at the listed device and function
// numbers (uncore_pci_probe matches UNCORE_PCI_DEV_DEV/FUNC), on the socket of their bus: the
// kernel's snbep_pci2phy_map_init map from the UBOX functions' node ID registers, or the function's
// NUMA node when there is no UBOX.
#include "kernel_discovery.h"

#include <array>
#include <bit>
#include <map>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"

namespace pmukit::discovery {

namespace {

constexpr std::uint16_t kIntel = 0x8086;
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

// skx_count_chabox: hweight32(dword & mask) of the first function of the device ID; 0 without one.
unsigned counted_boxes(Machine& machine, const std::vector<pci::Device>& devices, const platform::KernelBoxCount& c) {
  for (const auto& d : devices)
    if (d.vendor_id == kIntel && d.device_id == c.device_id) {
      auto v = machine.pci().config(d.bdf).read32(c.offset);
      return v ? static_cast<unsigned>(std::popcount(*v & c.mask)) : 0;
    }
  return 0;
}

struct Context {
  Machine& machine;
  const std::vector<pci::Device>& devices;
  const Topology& topo;
  Inventory& inv;
  std::map<int, std::size_t> table_of_socket;  // socket -> index into inv.intel_tables
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

// `shift`: how far the box's registers are from box 0's (MSR boxes: msr_offset * box; PCI: 0).
void add_unit(Context& c, const platform::IntelBoxType& bt, IntelUnit iu, std::uint64_t shift, int socket,
              const platform::IntelUncore& p) {
  const auto& k = *bt.kernel;
  iu.type = bt.type;
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

void add_msr_boxes(Context& c, const platform::IntelBoxType& bt, const platform::IntelUncore& p) {
  const auto& k = *bt.kernel;
  const unsigned n = k.count ? counted_boxes(c.machine, c.devices, *k.count) : k.boxes;
  if (k.count && n == 0)
    c.inv.warnings.push_back(fmt::format("{}: no {:04x} function to count the boxes from ({:#x}): none listed",
                                         k.source, k.count->device_id, k.count->offset));
  for (int socket : c.topo.packages()) {
    const int cpu = c.topo.first_cpu(socket);
    for (unsigned b = 0; b < n; ++b) {
      IntelUnit iu;
      iu.access = RegAccess::Msr;
      iu.box_id = static_cast<std::uint16_t>(b);
      iu.msr_cpu = cpu;
      add_unit(c, bt, std::move(iu), k.box_stride * b, socket, p);
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
      add_unit(c, bt, std::move(iu), 0, socket, p);
    }
}

}  // namespace

void discover_kernel_boxes(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                           const platform::IntelUncore& platform, Inventory& inventory) {
  Context c{machine, devices, topology, inventory, {}};
  BusMap buses;
  if (platform.pci_socket_map) buses = bus_sockets(machine, devices, *platform.pci_socket_map, inventory.warnings);
  for (const auto& [type, bt] : platform.box_types) {
    if (!bt.kernel) continue;
    if (bt.kernel->pci)
      add_pci_boxes(c, bt, buses, platform);
    else
      add_msr_boxes(c, bt, platform);
  }
}

}  // namespace pmukit::discovery
