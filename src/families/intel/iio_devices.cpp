// pmukit -- Intel PCIe device -> IIO stack, part and filter terms, from the stacks of
// read_iio_topology and the PCI topology: a device is attributed through the function it hangs
// from on a stack's buses (its outermost bridge, or itself), which the stack's layout rules give a
// part (PCM pcm-iio-topology.cpp *StackProbe: root ports by device number, accelerators by id).
#include "pmukit/families/intel/iio_devices.h"

#include <algorithm>

#include <fmt/format.h>

#include "iio_kernel.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/syntax/format.h"

namespace pmukit::discovery {

namespace {

const pci::Device* find_device(const std::vector<pci::Device>& devices, const Bdf& b) {
  auto it =
      std::lower_bound(devices.begin(), devices.end(), b, [](const pci::Device& d, const Bdf& x) { return d.bdf < x; });
  return it != devices.end() && it->bdf == b ? &*it : nullptr;
}

// The function a device hangs from: its root port, else the outermost bridge whose bus range holds
// its bus (legacy bridges without a PCIe capability), else itself.
const pci::Device* anchor_of(const pci::Device& d, const std::vector<pci::Device>& devices) {
  if (d.root_port)
    if (const auto* rp = find_device(devices, *d.root_port)) return rp;
  const pci::Device* best = nullptr;
  for (const auto& b : devices) {
    if (!b.is_bridge() || b.bdf.domain != d.bdf.domain || !b.secondary_bus || !b.subordinate_bus) continue;
    if (d.bdf.bus < *b.secondary_bus || d.bdf.bus > *b.subordinate_bus || b.bdf == d.bdf) continue;
    if (!best || *b.subordinate_bus - *b.secondary_bus > *best->subordinate_bus - *best->secondary_bus) best = &b;
  }
  return best ? best : &d;
}

// The stack whose bus range [root bus, next root bus of the domain) holds `bus`.
const IioStack* stack_holding(const IioTopology& t, std::uint32_t domain, std::uint8_t bus) {
  const IioStack* best = nullptr;
  for (const auto& s : t.stacks)
    if (s.domain == domain && s.root_bus <= bus && (!best || s.root_bus > best->root_bus)) best = &s;
  return best;
}

struct Match {
  const platform::IioPartRule* rule = nullptr;
  std::vector<unsigned> parts;
};

std::optional<Match> match_rule(const std::vector<platform::IioPartRule>& rules, const pci::Device& anchor, bool below,
                                unsigned bus_offset) {
  for (const auto& r : rules) {
    if (!r.bus_offsets.holds(bus_offset) || !r.devs.holds(anchor.bdf.dev)) continue;
    if ((r.fn && anchor.bdf.fn != *r.fn) || (r.vendor && anchor.vendor_id != *r.vendor)) continue;
    if (!r.ids.empty() && std::find(r.ids.begin(), r.ids.end(), anchor.device_id) == r.ids.end()) continue;
    if (below && !r.below) continue;
    if (r.root_ports) {
      if (!anchor.is_bridge()) continue;
      if (r.part_by_id.empty()) return Match{&r, {anchor.bdf.dev - r.devs.lo}};
      auto it = r.part_by_id.find(anchor.device_id);
      if (it == r.part_by_id.end()) continue;
      return Match{&r, {it->second}};
    }
    return Match{&r, r.parts};
  }
  return std::nullopt;
}

std::string parts_text(const std::vector<unsigned>& parts) {
  if (parts.size() == 1) return fmt::format("part {}", parts.front());
  std::string s = "parts ";
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? "," : "") + std::to_string(parts[i]);
  return s;
}

const PmuUnit* find_unit(const Inventory* inv, std::uint16_t type, unsigned box, int socket) {
  if (!inv) return nullptr;
  for (const auto& u : inv->units)
    if (const auto* iu = u.as<IntelUnit>(); iu && iu->type == type && iu->box_id == box && u.socket == socket)
      return &u;
  return nullptr;
}

// ch_mask and fc_mask as the kernel's format places them (platforms/pmus kind of the scheme).
void encode_filter(const platform::IioMapScheme& s, IioDeviceMap& r) {
  const auto* kind = platform::Database::builtin().pmu_kind(s.pmu_kind);
  auto ch = syntax::parse_format(s.ch_mask_term, kind->formats.at(s.ch_mask_term));
  auto fc = syntax::parse_format(s.fc_mask_term, kind->formats.at(s.fc_mask_term));
  for (unsigned p : r.parts) r.ch_mask |= 1ull << p;
  r.fc_mask = s.fc_mask;
  r.ch_mask_format = syntax::format_text(ch);
  r.fc_mask_format = syntax::format_text(fc);
  r.filter_config = syntax::spread_value(ch, r.ch_mask)[0] | syntax::spread_value(fc, r.fc_mask)[0];
}

void add_filters(const IioTopology& t, const pci::Device& anchor, IioDeviceMap& r) {
  const auto& s = *t.scheme;
  std::string terms = fmt::format("{}={:#x},{}={:#x}", s.ch_mask_term, r.ch_mask, s.fc_mask_term, r.fc_mask);
  std::string what = r.part_what == "root port" ? fmt::format("every device below root port {}", anchor.bdf.str())
                                                : fmt::format("{} {}", r.part_what, anchor.bdf.str());
  r.filters.push_back({r.pmu, terms, fmt::format("{} of stack {}: {}", parts_text(r.parts), r.stack->name, what),
                       fmt::format("{}/{},{}/", r.pmu, s.example_event, terms)});
  if (r.free_running.empty()) return;
  for (unsigned p : r.parts) {
    if (p >= s.free_running_ports) continue;
    std::string ev = platform::expand_pattern(s.free_running_event, {{"part", std::to_string(p)}});
    r.filters.push_back({r.free_running, ev, fmt::format("inbound bandwidth of part {} (free-running counter)", p),
                         fmt::format("{}/{}/", r.free_running, ev)});
  }
}

std::string kind_of(const pci::Device& d) {
  return d.port_type ? pci::port_type_name(*d.port_type) : d.is_bridge() ? "PCI bridge" : "conventional PCI device";
}

// "it" for the device itself, "its root port 0000:15:01.0" for the function it hangs from.
std::string who(const pci::Device& anchor, const pci::Device& dev) {
  if (&anchor == &dev) return "it";
  return fmt::format("its {} {}", anchor.is_root_port() ? "root port" : "bridge", anchor.bdf.str());
}

std::string stack_text(const IioStack& s) {
  return fmt::format("IIO stack {} (socket {}, root bus {:04x}:{:02x})", s.name, s.socket, s.domain, s.root_bus);
}

}  // namespace

IioDeviceMap map_iio_device(const pci::Device& dev, const std::vector<pci::Device>& devices, const IioTopology& t,
                            const Inventory* inv) {
  IioDeviceMap r;
  r.device = dev.bdf;
  r.kind = kind_of(dev);
  r.root_port = dev.root_port;
  const pci::Device* anchor = anchor_of(dev, devices);
  r.anchor = anchor->bdf;
  r.on_stack = stack_holding(t, anchor->bdf.domain, anchor->bdf.bus);
  if (!r.on_stack) {
    r.error = fmt::format("{}bus {:04x}:{:02x} is below the root bus of every IIO stack found: no IIO PMU sees it",
                          &dev == anchor ? "" : who(*anchor, dev) + " is on ", anchor->bdf.domain, anchor->bdf.bus);
    return r;
  }
  const IioStack* st = r.on_stack->parent ? &t.stacks[*r.on_stack->parent] : r.on_stack;
  if (!st->table_entry || !st->pmu) {
    r.error = fmt::format("{} is on the buses of {}, {}", who(*anchor, dev), stack_text(*r.on_stack),
                          st->table_entry ? "which has no IIO PMU" : "which the table does not list");
    return r;
  }
  const auto& s = *t.scheme;
  auto layout = t.table->layouts.find(st->table_entry->layout);
  std::optional<Match> m;
  if (layout != t.table->layouts.end() && anchor->bdf.bus >= st->root_bus)
    m = match_rule(layout->second, *anchor, anchor != &dev, anchor->bdf.bus - st->root_bus);
  bool on_root_bus = anchor->bdf.bus == r.on_stack->root_bus;
  if (!m && !on_root_bus) {
    r.error = fmt::format("{} is on bus {:02x}, in the bus range of {}, but no part of that stack holds it",
                          who(*anchor, dev), anchor->bdf.bus, stack_text(*r.on_stack));
    return r;
  }
  r.stack = st;
  r.pmu = platform::expand_pattern(s.pmu_pattern, {{"pmu", std::to_string(*st->pmu)}});
  if (!s.free_running_pattern.empty())
    r.free_running = platform::expand_pattern(s.free_running_pattern, {{"pmu", std::to_string(*st->pmu)}});
  r.unit = find_unit(inv, s.iio_box_type, *st->pmu, st->socket);
  if (r.unit)
    if (const auto* iu = r.unit->as<IntelUnit>(); iu && iu->table < inv->intel_tables.size())
      r.unit_table = inv->intel_tables[iu->table].source;
  if (!m) {
    r.error = fmt::format("{} is a function on the root bus of {}: {} counts the stack, but no ch_mask part "
                          "selects {}",
                          who(*anchor, dev), stack_text(*st), r.pmu, &dev == anchor ? "it" : "them");
    return r;
  }
  r.parts = m->parts;
  r.part_what = m->rule->what;
  encode_filter(s, r);
  add_filters(t, *anchor, r);
  return r;
}

}  // namespace pmukit::discovery
