// pmu-rcmap -- Intel output: the IIO stacks, one device's stack, part and filters, JSON, tree notes.
#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "pmukit/platform/soc_data.h"
#include "pmukit/util/text.h"
#include "views.h"

namespace pmukit::tools::rcmap {

using discovery::IioDeviceMap;
using discovery::IioStack;
using discovery::IioTopology;
using ojson = nlohmann::ordered_json;

namespace {

std::string pmu_of(const IioTopology& t, const IioStack& s) {
  return s.pmu ? platform::expand_pattern(t.scheme->pmu_pattern, {{"pmu", std::to_string(*s.pmu)}}) : "";
}

std::string parts_list(const std::vector<unsigned>& parts) {
  std::string s;
  for (unsigned p : parts) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s;
}

ojson nullable(const std::string& s) {
  return s.empty() ? ojson(nullptr) : ojson(s);
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
    std::string pmu = pmu_of(t, s);
    if (pmu.empty()) pmu = s.parent ? "(" + pmu_of(t, t.stacks[*s.parent]) + ")" : "-";
    fmt::print("{:<6}  {:<3}  {:04x}:{:02x}   {:<5}  {:<14}  {:<14}  {:>7}  {}\n", s.socket, s.die, s.domain,
               s.root_bus, s.entry, s.name, pmu, n, s.source);
  }
}

ojson iio_topology_json(const IioTopology& t) {
  ojson j{{"scheme", t.scheme->name},
          {"description", t.scheme->description},
          {"route", t.route},
          {"table", t.table ? ojson(t.table->name) : ojson(nullptr)},
          {"table_source", nullable(t.table_source)},
          {"config_reads", t.config_reads}};
  j["stacks"] = ojson::array();
  for (const auto& s : t.stacks) {
    std::string fr = s.pmu && !t.scheme->free_running_pattern.empty()
                         ? platform::expand_pattern(t.scheme->free_running_pattern, {{"pmu", std::to_string(*s.pmu)}})
                         : "";
    j["stacks"].push_back({{"socket", s.socket},
                           {"die", s.die},
                           {"domain", fmt::format("{:04x}", s.domain)},
                           {"root_bus", fmt::format("{:02x}", s.root_bus)},
                           {"entry", s.entry},
                           {"name", s.name},
                           {"pmu", nullable(pmu_of(t, s))},
                           {"free_running", nullable(fr)},
                           {"part_of", s.parent ? ojson(t.stacks[*s.parent].entry) : ojson(nullptr)},
                           {"source", s.source},
                           {"kernel", nullable(s.kernel)}});
  }
  j["warnings"] = t.warnings;
  return j;
}

ojson iio_device_json(const IioDeviceMap& r, const IioTopology& t, Machine& machine, const pci::Device& d,
                      const discovery::KernelPmus& kernel) {
  ojson j{{"device", r.device.str()},
          {"name", device_name(machine, d)},
          {"kind", r.kind},
          {"root_port", r.root_port ? ojson(r.root_port->str()) : ojson(nullptr)}};
  if (r.stack) {
    const auto& s = *r.stack;
    j["mapping"] = {{"scheme", t.scheme->name},
                    {"socket", s.socket},
                    {"die", s.die},
                    {"domain", fmt::format("{:04x}", s.domain)},
                    {"root_bus", fmt::format("{:02x}", s.root_bus)},
                    {"stack", s.name},
                    {"entry", s.entry},
                    {"pmu", r.pmu},
                    {"free_running", nullable(r.free_running)},
                    {"unit", r.unit ? ojson(r.unit->name) : ojson(nullptr)},
                    {"unit_table", nullable(r.unit_table)},
                    {"anchor", r.anchor ? ojson(r.anchor->str()) : ojson(nullptr)},
                    {"parts", r.parts},
                    {"part_what", nullable(r.part_what)},
                    {"ch_mask", hex(r.ch_mask)},
                    {"fc_mask", hex(r.fc_mask)},
                    {"ch_mask_format", nullable(r.ch_mask_format)},
                    {"fc_mask_format", nullable(r.fc_mask_format)},
                    {"filter_config", hex(r.filter_config)},
                    {"source", s.source},
                    {"table", t.table_source}};
  }
  if (!r.error.empty()) j["error"] = r.error;
  if (r.parts.empty()) return j;
  j["filters"] = ojson::array();
  for (const auto& f : r.filters)
    j["filters"].push_back({{"pmu", f.pmu},
                            {"terms", f.terms},
                            {"scope", f.scope},
                            {"example", f.example},
                            {"registered", kernel.present ? ojson(kernel.has(f.pmu)) : ojson(nullptr)}});
  return j;
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
    if (s.pmu) return head + ": " + pmu_of(t, s);
    if (s.parent) return head + ": " + pmu_of(t, t.stacks[*s.parent]) + ", with stack " + t.stacks[*s.parent].name;
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
