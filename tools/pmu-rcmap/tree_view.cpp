// pmu-rcmap -- the PCI tree as `lspci -tv` draws it (root buses, bridges with their [secondary-
// subordinate] ranges, functions below them), each line annotated with the PMU that sees it.
#include <map>
#include <set>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "views.h"

namespace pmukit::tools::rcmap {

namespace {

using Bus = std::pair<std::uint32_t, std::uint8_t>;  // (domain, bus)

struct Tree {
  std::map<Bus, std::vector<const pci::Device*>> on_bus;
  Machine& machine;
  const TreeNotes& notes;

  void line(const std::string& prefix, bool last, const pci::Device& d, std::set<Bus>& drawn) {
    std::string range;
    bool bridge = d.is_bridge() && d.secondary_bus && d.subordinate_bus && *d.secondary_bus > d.bdf.bus;
    if (bridge)
      range = *d.secondary_bus == *d.subordinate_bus
                  ? fmt::format("-[{:02x}]", *d.secondary_bus)
                  : fmt::format("-[{:02x}-{:02x}]", *d.secondary_bus, *d.subordinate_bus);
    std::string note = notes.device ? notes.device(d) : "";
    fmt::print("{}{}{:02x}.{}{}  {}{}{}\n", prefix, last ? "\\-" : "+-", d.bdf.dev, d.bdf.fn, range,
               device_name(machine, d), note.empty() ? "" : "  ", note);
    if (bridge) children(prefix + (last ? "   " : "|  "), {d.bdf.domain, *d.secondary_bus}, drawn);
  }

  void children(const std::string& prefix, Bus bus, std::set<Bus>& drawn) {
    if (!drawn.insert(bus).second) return;  // a bus reached twice (overlapping ranges) is drawn once
    auto it = on_bus.find(bus);
    if (it == on_bus.end()) return;
    const auto& list = it->second;
    for (std::size_t i = 0; i < list.size(); ++i) line(prefix, i + 1 == list.size(), *list[i], drawn);
  }
};

}  // namespace

void print_tree(const std::vector<pci::Device>& devices, Machine& machine, const TreeNotes& notes) {
  Tree t{{}, machine, notes};
  std::set<Bus> below;  // buses some bridge leads to
  for (const auto& d : devices) {
    t.on_bus[{d.bdf.domain, d.bdf.bus}].push_back(&d);
    if (d.is_bridge() && d.secondary_bus && d.subordinate_bus && *d.secondary_bus > d.bdf.bus)
      for (unsigned b = *d.secondary_bus; b <= *d.subordinate_bus; ++b)
        below.insert({d.bdf.domain, static_cast<std::uint8_t>(b)});
  }
  std::set<Bus> drawn;
  for (const auto& [bus, list] : t.on_bus) {
    if (below.count(bus)) continue;
    std::string note = notes.bus ? notes.bus(bus.first, bus.second) : "";
    fmt::print("-[{:04x}:{:02x}]-{}{}\n", bus.first, bus.second, note.empty() ? "" : " ", note);
    t.children(" ", bus, drawn);
  }
}

}  // namespace pmukit::tools::rcmap
