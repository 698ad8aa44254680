// pmukit -- Intel PCIe device -> IIO stack, part and filter terms, from the stacks of
// read_iio_topology and the PCI topology: a device is attributed through the function it hangs
// from on a stack's buses (its outermost bridge, or itself), which the stack's layout rules give a
// part (PCM pcm-iio-topology.cpp *StackProbe: root ports by device number, accelerators by id).
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "iio_internal.h"
#include "pmukit/platform/database.h"
#include "pmukit/syntax/format.h"

namespace pmukit::discovery {

namespace {

const pci::Device* find_device(const std::vector<pci::Device>& devices, const Bdf& b) {
  auto it =
      std::lower_bound(devices.begin(), devices.end(), b, [](const pci::Device& d, const Bdf& x) { return d.bdf < x; });
  return it != devices.end() && it->bdf == b ? &*it : nullptr;
}

// The function each device hangs from: its root port, else the outermost bridge whose bus range
// holds its bus (legacy bridges without a PCIe capability; the widest range, the first in device
// order among equals), else itself. The bridges of a domain are swept once over its 256 buses,
// keeping the two widest ranges that hold each bus (a bridge never hangs from itself).
class Anchors {
 public:
  explicit Anchors(const std::vector<pci::Device>& devices) : devices_(devices) {
    std::map<std::uint32_t, std::vector<std::size_t>> by_domain;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const auto& b = devices[i];
      if (b.is_bridge() && b.secondary_bus && b.subordinate_bus && *b.secondary_bus <= *b.subordinate_bus)
        by_domain[b.bdf.domain].push_back(i);
    }
    for (const auto& [domain, bridges] : by_domain) sweep(domain, bridges);
  }

  const pci::Device* of(const pci::Device& d) const {
    if (d.root_port)
      if (const auto* rp = find_device(devices_, *d.root_port)) return rp;
    auto it = widest_.find(d.bdf.domain);
    if (it == widest_.end()) return &d;
    const auto& two = it->second[d.bdf.bus];
    const pci::Device* best = two[0] == &d ? two[1] : two[0];
    return best ? best : &d;
  }

 private:
  using Two = std::array<const pci::Device*, 2>;

  void sweep(std::uint32_t domain, const std::vector<std::size_t>& bridges) {
    std::array<std::vector<std::size_t>, 256> starting;
    for (auto i : bridges) starting[*devices_[i].secondary_bus].push_back(i);
    // Widest first, then in device order: (-width, index).
    std::set<std::pair<int, std::size_t>> open;
    auto& widest = widest_[domain];
    for (unsigned bus = 0; bus < 256; ++bus) {
      for (auto i : starting[bus])
        open.emplace(-static_cast<int>(*devices_[i].subordinate_bus - *devices_[i].secondary_bus), i);
      std::erase_if(open, [&](const auto& e) { return *devices_[e.second].subordinate_bus < bus; });
      Two two{nullptr, nullptr};
      auto it = open.begin();
      for (std::size_t k = 0; k < 2 && it != open.end(); ++k, ++it) two[k] = &devices_[it->second];
      widest[bus] = two;
    }
  }

  const std::vector<pci::Device>& devices_;
  std::map<std::uint32_t, std::array<Two, 256>> widest_;
};

// The stack whose bus range [root bus, next root bus of the domain) holds a bus: the stack with the
// highest root bus at or below it (the first in stack order among equals).
class StackIndex {
 public:
  explicit StackIndex(const IioTopology& t) {
    for (std::size_t i = 0; i < t.stacks.size(); ++i) sorted_.push_back(&t.stacks[i]);
    std::stable_sort(sorted_.begin(), sorted_.end(), [](const IioStack* a, const IioStack* b) {
      return std::tie(a->domain, a->root_bus) < std::tie(b->domain, b->root_bus);
    });
  }
  const IioStack* holding(std::uint32_t domain, std::uint8_t bus) const {
    // The first stack past (domain, bus); the group of equal root buses before it starts at `from`.
    auto after = std::upper_bound(sorted_.begin(), sorted_.end(), std::pair{domain, bus},
                                  [](const auto& key, const IioStack* s) {
                                    return std::tie(key.first, key.second) < std::tie(s->domain, s->root_bus);
                                  });
    if (after == sorted_.begin() || (*std::prev(after))->domain != domain) return nullptr;
    auto from = std::prev(after);
    while (from != sorted_.begin() && (*std::prev(from))->domain == domain &&
           (*std::prev(from))->root_bus == (*from)->root_bus)
      --from;
    return *from;
  }

 private:
  std::vector<const IioStack*> sorted_;
};

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

// The discovered IIO units by (box type, box id, socket): the first of each in inventory order.
class UnitIndex {
 public:
  UnitIndex(const Inventory* inv, std::uint16_t type) {
    if (!inv) return;
    for (const auto& u : inv->units)
      if (const auto* iu = u.as<IntelUnit>(); iu && iu->type == type)
        units_.emplace(std::pair{iu->box_id, u.socket}, &u);
  }
  const PmuUnit* find(unsigned box, int socket) const {
    auto it = units_.find({box, socket});
    return it == units_.end() ? nullptr : it->second;
  }

 private:
  std::map<std::pair<unsigned, int>, const PmuUnit*> units_;
};

// ch_mask and fc_mask as the kernel's format places them (platforms/pmus kind of the scheme),
// parsed once per mapping.
struct FilterFormats {
  explicit FilterFormats(const platform::IioMapScheme& s) {
    const auto* kind = platform::Database::builtin().pmu_kind(s.pmu_kind);
    ch = syntax::parse_format(s.ch_mask_term, kind->formats.at(s.ch_mask_term));
    fc = syntax::parse_format(s.fc_mask_term, kind->formats.at(s.fc_mask_term));
  }
  syntax::FormatField ch, fc;
};

void encode_filter(const platform::IioMapScheme& s, const FilterFormats& f, IioDeviceMap& r) {
  for (unsigned p : r.parts) r.ch_mask |= 1ull << p;
  r.fc_mask = s.fc_mask;
  r.ch_mask_format = syntax::format_text(f.ch);
  r.fc_mask_format = syntax::format_text(f.fc);
  r.filter_config = syntax::spread_value(f.ch, r.ch_mask)[0] | syntax::spread_value(f.fc, r.fc_mask)[0];
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

namespace {

// Every device's mapping, from indexes built once: each device's anchor and stack in O(log N).
class Mapper {
 public:
  Mapper(const std::vector<pci::Device>& devices, const IioTopology& t, const Inventory* inv)
      : t_(t), inv_(inv), anchors_(devices), stacks_(t), units_(inv, t.scheme->iio_box_type) {}
  IioDeviceMap map(const pci::Device& dev);

 private:
  const IioTopology& t_;
  const Inventory* inv_;
  Anchors anchors_;
  StackIndex stacks_;
  UnitIndex units_;
  std::optional<FilterFormats> formats_;
};

IioDeviceMap Mapper::map(const pci::Device& dev) {
  IioDeviceMap r;
  r.device = dev.bdf;
  r.kind = kind_of(dev);
  r.root_port = dev.root_port;
  const pci::Device* anchor = anchors_.of(dev);
  r.anchor = anchor->bdf;
  r.on_stack = stacks_.holding(anchor->bdf.domain, anchor->bdf.bus);
  if (!r.on_stack) {
    r.error = fmt::format("{}bus {:04x}:{:02x} is below the root bus of every IIO stack found: no IIO PMU sees it",
                          &dev == anchor ? "" : who(*anchor, dev) + " is on ", anchor->bdf.domain, anchor->bdf.bus);
    return r;
  }
  const IioStack* st = r.on_stack->parent ? &t_.stacks[*r.on_stack->parent] : r.on_stack;
  if (!st->table_entry || !st->pmu) {
    r.error = fmt::format("{} is on the buses of {}, {}", who(*anchor, dev), stack_text(*r.on_stack),
                          st->table_entry ? "which has no IIO PMU" : "which the table does not list");
    return r;
  }
  const auto& s = *t_.scheme;
  auto layout = t_.table->layouts.find(st->table_entry->layout);
  std::optional<Match> m;
  if (layout != t_.table->layouts.end() && anchor->bdf.bus >= st->root_bus)
    m = match_rule(layout->second, *anchor, anchor != &dev, anchor->bdf.bus - st->root_bus);
  bool on_root_bus = anchor->bdf.bus == r.on_stack->root_bus;
  if (!m && !on_root_bus) {
    r.error = fmt::format("{} is on bus {:02x}, in the bus range of {}, but no part of that stack holds it",
                          who(*anchor, dev), anchor->bdf.bus, stack_text(*r.on_stack));
    return r;
  }
  r.stack = st;
  r.pmu = st->pmu_name;
  r.free_running = st->free_running;
  r.unit = units_.find(*st->pmu, st->socket);
  if (r.unit)
    if (const auto* iu = r.unit->as<IntelUnit>(); iu && iu->table < inv_->intel_tables.size())
      r.unit_table = inv_->intel_tables[iu->table].source;
  if (!m) {
    r.error = fmt::format("{} is a function on the root bus of {}: {} counts the stack, but no ch_mask part "
                          "selects {}",
                          who(*anchor, dev), stack_text(*st), r.pmu, &dev == anchor ? "it" : "them");
    return r;
  }
  r.parts = m->parts;
  r.part_what = m->rule->what;
  if (!formats_) formats_.emplace(s);
  encode_filter(s, *formats_, r);
  add_filters(t_, *anchor, r);
  return r;
}

}  // namespace

IioDeviceMap map_iio_device(const pci::Device& device, const std::vector<pci::Device>& devices,
                            const IioTopology& topology, const Inventory* inventory) {
  return Mapper(devices, topology, inventory).map(device);
}

std::vector<IioDeviceMap> map_iio_devices(const std::vector<pci::Device>& devices, const IioTopology& topology,
                                          const Inventory* inventory) {
  Mapper mapper(devices, topology, inventory);
  std::vector<IioDeviceMap> maps;
  maps.reserve(devices.size());
  for (const auto& d : devices) maps.push_back(mapper.map(d));
  return maps;
}

}  // namespace pmukit::discovery
