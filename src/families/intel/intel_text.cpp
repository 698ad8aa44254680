// pmukit -- the Intel section of pmu-discover's text view.
#include "intel_text.h"

#include <algorithm>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "pmukit/discovery/access_report.h"
#include "pmukit/families/intel/intel_layout.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/unit_layout.h"

namespace pmukit::families {

namespace {

using discovery::IntelUnit;
using discovery::PmuUnit;
using Role = pmu::IntelRole;

// A register as the Intel table shows it: its address, with the device for config space.
std::string where(const pmu::Reg& r) {
  if (const auto* c = std::get_if<pmu::ConfigAddress>(&r.at)) return fmt::format("{}@{:#x}", c->bdf.str(), c->offset);
  return fmt::format("{:#x}", pmu::location(r.at));
}

// "0xc8aa2840+4i": the first register of a role and the step, which give every one of them.
std::string series(const pmu::UnitLayout& l, Role role) {
  const auto n = l.count(role);
  if (n == 0) return "-";
  const pmu::Reg& first = l.at(role, 0);
  std::string text = std::holds_alternative<pmu::ConfigAddress>(first.at)
                         ? fmt::format("@{:#x}", pmu::location(first.at))
                         : fmt::format("{:#x}", pmu::location(first.at));
  if (n == 1) return text;
  return fmt::format("{}+{}i", text, pmu::location(l.at(role, 1).at) - pmu::location(first.at));
}

// The discovery tables in the order they are shown: by socket, then die.
std::vector<std::size_t> tables_by_place(const discovery::Inventory& inv) {
  std::vector<std::size_t> order(inv.intel_tables.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto &ta = inv.intel_tables[a], &tb = inv.intel_tables[b];
    return std::pair(ta.socket, ta.die) < std::pair(tb.socket, tb.die);
  });
  return order;
}

// One table's boxes, by type and box number, with their notes when they change.
void box_lines(std::string& out, std::vector<const PmuUnit*>& units, bool verbose) {
  auto to = std::back_inserter(out);
  std::stable_sort(units.begin(), units.end(), [](const PmuUnit* a, const PmuUnit* b) {
    const auto *x = a->as<IntelUnit>(), *y = b->as<IntelUnit>();
    return std::pair(x->type, x->box_id) < std::pair(y->type, y->box_id);
  });
  if (units.empty()) return;
  fmt::format_to(to, "    {:<8} {:>4} {:>4}  {:<6} {:<22} {:<20} {:<20} {:>5}  {}\n", "TYPE", "NUM", "BOX", "ACCESS",
                 "BOX CTL", "CONTROLS", "COUNTERS", "CTRS", "KERNEL PMU");
  std::string last_notes;
  for (const PmuUnit* u : units) {
    const auto& iu = *u->as<IntelUnit>();
    const auto layout = pmu::make_layout(*u, platform::Database::builtin());
    std::string type = u->type_name.empty() ? "-" : u->type_name;
    fmt::format_to(to, "    {:<8} {:>4} {:>4}  {:<6} {:<22} {:<20} {:<20} {:>5}  {}\n", type, iu.type, iu.box_id,
                   discovery::access_name(iu.access), where(layout.at(Role::BoxControl)),
                   series(layout, Role::CounterControl), series(layout, Role::Counter),
                   fmt::format("{}x{}", u->num_counters, u->counter_width), u->name);
    std::string notes;
    for (const auto& n : u->notes) notes += n + "\n";
    if (verbose && layout.find(Role::FixedCounter))
      fmt::format_to(to, "    {:>49}fixed counter {:#x}, control {:#x}\n", "",
                     pmu::location(layout.at(Role::FixedCounter).at), pmu::location(layout.at(Role::FixedControl).at));
    if (!notes.empty() && notes != last_notes)
      for (const auto& n : u->notes) fmt::format_to(to, "      ! {}: {}\n", type, n);
    last_notes = notes;
  }
}

}  // namespace

std::string intel_text_section(const discovery::Inventory& inv, bool verbose) {
  if (inv.intel_tables.empty()) return "";
  std::string out;
  auto to = std::back_inserter(out);
  std::map<std::size_t, std::vector<const PmuUnit*>> by_table;
  for (const auto& u : inv.units)
    if (const auto* iu = u.as<IntelUnit>()) by_table[iu->table].push_back(&u);
  std::size_t valid = 0, skipped = 0, empty = 0;
  for (const auto& t : inv.intel_tables) valid += t.valid_units, skipped += t.skipped_units, empty += t.empty_records;
  const bool kernel = std::all_of(inv.intel_tables.begin(), inv.intel_tables.end(),
                                  [](const discovery::IntelTable& t) { return t.origin == "kernel"; });
  if (kernel)  // a Xeon before the discovery tables (kernel_discovery.h)
    fmt::format_to(to, "Intel uncore, no PMON discovery tables: {} units from the kernel's fixed tables\n", valid);
  else
    fmt::format_to(to, "Intel uncore PMON discovery: {} table{}, {} units ({} skipped{})\n", inv.intel_tables.size(),
                   inv.intel_tables.size() == 1 ? "" : "s", valid, skipped,
                   empty ? fmt::format(", {} empty record{}", empty, empty == 1 ? "" : "s") : "");
  int socket = -2;
  for (std::size_t ti : tables_by_place(inv)) {
    const auto& t = inv.intel_tables[ti];
    if (t.socket != socket) {
      socket = t.socket;
      fmt::format_to(to, "\nSocket {} ({})\n", t.socket, t.socket_source);
    }
    if (t.origin == "kernel")  // no table on the machine: the kernel's fixed one (kernel_discovery.h)
      fmt::format_to(to, "  Die {}: {}: {} units\n", t.die, t.source, t.valid_units);
    else
      fmt::format_to(to, "  Die {}: {}: table at {:#x}, {} units, stride {} bytes, global control {:#x}\n", t.die,
                     t.source, t.base, t.valid_units, t.stride, t.global_ctl);
    if (verbose && t.origin != "kernel") fmt::format_to(to, "         read through {}\n", t.mapped_through);
    box_lines(out, by_table[ti], verbose);
  }
  return out;
}

}  // namespace pmukit::families
