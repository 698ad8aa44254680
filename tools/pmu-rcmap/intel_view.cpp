// pmu-rcmap -- Intel output: the IIO stacks, one device's stack, part and filters, tree notes (the
// JSON is the library's, pmukit/discovery/iio_json.h).
#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "views.h"

namespace pmukit::tools::rcmap {

using discovery::IioDeviceMap;
using discovery::IioStack;
using discovery::IioTopology;

namespace {

std::string parts_list(const std::vector<unsigned>& parts) {
  std::string s;
  for (unsigned p : parts) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s;
}

}  // namespace

void print_iio_stacks(const IioTopology& t, const std::vector<IioDeviceMap>& maps) {
  fmt::print("IIO stacks of {} ({}), read from {}; {}\n", t.scheme->name, t.scheme->description, t.route,
             t.table ? t.table_source : "no table");
  fmt::print("{:<6}  {:<3}  {:<8}  {:<5}  {:<14}  {:<14}  {:>7}  {}\n", "SOCKET", "DIE", "ROOT BUS", "ENTRY", "STACK",
             "IIO PMU", "DEVICES", "FROM");
  for (const auto& s : t.stacks) {
    unsigned n = 0;
    for (const auto& m : maps) n += m.stack == &s && !m.parts.empty();
    std::string pmu = s.pmu_name;
    if (pmu.empty()) pmu = s.parent ? "(" + t.stacks[*s.parent].pmu_name + ")" : "-";
    fmt::print("{:<6}  {:<3}  {:04x}:{:02x}   {:<5}  {:<14}  {:<14}  {:>7}  {}\n", s.socket, s.die, s.domain,
               s.root_bus, s.entry, s.name, pmu, n, s.source);
  }
}

void print_iio_device(const IioDeviceMap& r, const IioTopology& t, Machine& machine, const pci::Device& d,
                      const discovery::KernelPmus& kernel) {
  fmt::print("{} ({} {:04x}:{:04x})", r.device.str(), r.kind, d.vendor_id, d.device_id);
  if (r.root_port && *r.root_port != r.device) fmt::print(" below root port {}", r.root_port->str());
  fmt::print("\n  {}\n", device_name(machine, d));
  const auto& s = *r.stack;
  std::string part = r.parts.empty()       ? "no part"
                     : r.parts.size() == 1 ? fmt::format("part {} ({})", parts_list(r.parts), r.part_what)
                                           : fmt::format("parts {} ({})", parts_list(r.parts), r.part_what);
  fmt::print("  socket {} (Linux logical die {}), IIO stack {}, root bus {:04x}:{:02x}, {}\n", s.socket, s.die, s.name,
             s.domain, s.root_bus, part);
  fmt::print("  from {} (entry {}); {}\n", s.source, s.entry, t.table_source);
  if (!s.kernel.empty()) fmt::print("  Linux: {}\n", s.kernel);
  if (r.unit)
    fmt::print("  discovered unit {}: {} (socket {}, table die {})\n", r.unit->name, r.unit_table, r.unit->socket,
               r.unit->die);
  std::size_t w_pmu = 0, w_terms = 0;
  for (const auto& f : r.filters) w_pmu = std::max(w_pmu, f.pmu.size()), w_terms = std::max(w_terms, f.terms.size());
  for (const auto& f : r.filters) {
    std::string reg = kernel.present && !kernel.has(f.pmu) ? " [not registered with perf]" : "";
    fmt::print("  {:<{}}  {:<{}}  {}{}\n", f.pmu, w_pmu, f.terms, w_terms, f.scope, reg);
  }
  if (!r.filters.empty())
    fmt::print("  e.g. perf stat -a -e {}\n       counts the {}\n", r.filters.front().example, t.scheme->example_what);
}

std::string iio_bus_note(const IioTopology& t, const std::vector<IioDeviceMap>& maps, std::uint32_t domain,
                         std::uint8_t bus) {
  for (const auto& s : t.stacks) {
    if (s.domain != domain || s.root_bus != bus) continue;
    std::string head = fmt::format("socket {} IIO stack {} (entry {})", s.socket, s.name, s.entry);
    if (s.pmu) return head + ": " + s.pmu_name;
    if (s.parent) return head + ": " + t.stacks[*s.parent].pmu_name + ", with stack " + t.stacks[*s.parent].name;
    return head + (s.table_entry ? ": no IIO PMU" : ": not in the table");
  }
  // A bus that is no stack's root bus, holding a stack's accelerators (SPR: root bus + 1..3).
  for (const auto& m : maps)
    if (m.stack && !m.parts.empty() && m.anchor && m.anchor->domain == domain && m.anchor->bus == bus)
      return fmt::format("bus of socket {} IIO stack {}: {}", m.stack->socket, m.stack->name, m.pmu);
  return "";
}

std::string iio_device_note(const IioDeviceMap& r) {
  if (r.parts.empty() || !r.anchor || *r.anchor != r.device) return "";
  return fmt::format("[{} {} {}: ch_mask={:#x}]", r.pmu, r.parts.size() == 1 ? "part" : "parts", parts_list(r.parts),
                     r.ch_mask);
}

}  // namespace pmukit::tools::rcmap
