// pmu-discover -- text rendering of the inventory.
#include "inventory_view.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace pmukit::tools {

namespace {

using discovery::IntelUnit;
using discovery::PmuUnit;
using discovery::RegAccess;

std::string addr(const IntelUnit& u, std::uint64_t a) {
  if (u.access == RegAccess::PciConfig) return fmt::format("{}@{:#x}", u.pci_device->str(), a);
  return fmt::format("{:#x}", a);
}

// "0xc8aa2840+4i": first address and step, which give every register of the unit.
std::string series(const IntelUnit& u, const std::vector<std::uint64_t>& regs, unsigned step) {
  if (regs.empty()) return "-";
  std::string first = u.access == RegAccess::PciConfig ? fmt::format("@{:#x}", regs.front()) : fmt::format("{:#x}", regs.front());
  return regs.size() == 1 ? first : fmt::format("{}+{}i", first, step);
}

void print_intel(const discovery::DiscoveryResult& r, bool verbose) {
  const auto& inv = r.inventory;
  std::map<std::size_t, std::vector<const PmuUnit*>> by_table;
  for (const auto& u : inv.units)
    if (const auto* iu = u.as<IntelUnit>()) by_table[iu->table].push_back(&u);
  std::size_t valid = 0, skipped = 0;
  for (const auto& t : inv.intel_tables) valid += t.valid_units, skipped += t.skipped_units;
  fmt::print("Intel uncore PMON discovery: {} table{}, {} units ({} skipped)\n", inv.intel_tables.size(),
             inv.intel_tables.size() == 1 ? "" : "s", valid, skipped);
  // Tables sorted by socket then die.
  std::vector<std::size_t> order(inv.intel_tables.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto &ta = inv.intel_tables[a], &tb = inv.intel_tables[b];
    return std::pair(ta.socket, ta.die) < std::pair(tb.socket, tb.die);
  });
  int socket = -2;
  for (std::size_t ti : order) {
    const auto& t = inv.intel_tables[ti];
    if (t.socket != socket) {
      socket = t.socket;
      fmt::print("\nSocket {} ({})\n", t.socket, t.socket_source);
    }
    fmt::print("  Die {}: {}: table at {:#x}, {} units, stride {} bytes, global control {:#x}\n", t.die, t.source,
               t.base, t.valid_units, t.stride, t.global_ctl);
    if (verbose) fmt::print("         read through {}\n", t.mapped_through);
    auto& units = by_table[ti];
    std::stable_sort(units.begin(), units.end(), [](const PmuUnit* a, const PmuUnit* b) {
      const auto *x = a->as<IntelUnit>(), *y = b->as<IntelUnit>();
      return std::pair(x->type, x->box_id) < std::pair(y->type, y->box_id);
    });
    if (units.empty()) continue;
    fmt::print("    {:<8} {:>4} {:>4}  {:<6} {:<22} {:<20} {:<20} {:>5}  {}\n", "TYPE", "NUM", "BOX", "ACCESS", "BOX CTL",
               "CONTROLS", "COUNTERS", "CTRS", "KERNEL PMU");
    std::string last_notes;
    for (const PmuUnit* u : units) {
      const auto& iu = *u->as<IntelUnit>();
      std::string type = u->type_name.empty() ? "-" : u->type_name;
      fmt::print("    {:<8} {:>4} {:>4}  {:<6} {:<22} {:<20} {:<20} {:>5}  {}\n", type, iu.type, iu.box_id,
                 discovery::access_name(iu.access), addr(iu, iu.box_ctl), series(iu, iu.ctl, iu.ctl_step),
                 series(iu, iu.ctr, iu.ctr_step), fmt::format("{}x{}", u->num_counters, u->counter_width), u->name);
      std::string notes;
      for (const auto& n : u->notes) notes += n + "\n";
      if (verbose && iu.fixed_ctr)
        fmt::print("    {:>49}fixed counter {:#x}, control {:#x}\n", "", *iu.fixed_ctr, *iu.fixed_ctl);
      if (!notes.empty() && notes != last_notes)
        for (const auto& n : u->notes) fmt::print("      ! {}: {}\n", type, n);
      last_notes = notes;
    }
  }
}

void print_other(const discovery::DiscoveryResult& r) {
  bool any = false;
  for (const auto& u : r.inventory.units) {
    if (u.family == discovery::Family::IntelUncore) continue;
    if (!any) fmt::print("\nOther PMU units\n");
    any = true;
    fmt::print("  {:<32} {:<18} socket {}  {} counters x {} bits\n", u.name, discovery::family_name(u.family), u.socket,
               u.num_counters, u.counter_width);
  }
}

}  // namespace

void print_inventory_text(const discovery::DiscoveryResult& r, bool verbose) {
  const auto& inv = r.inventory;
  if (inv.platform.empty())
    fmt::print("Platform: {} (not in pmukit's database: generic names)\n",
               r.cpu ? fmt::format("{} family {} model {:#x}", r.cpu->vendor.empty() ? "Arm" : r.cpu->vendor,
                                   r.cpu->family, r.cpu->model)
                     : std::string("unknown CPU"));
  else
    fmt::print("Platform: {} ({})\n", inv.platform_description, inv.platform);
  if (!inv.intel_tables.empty()) print_intel(r, verbose);
  print_other(r);
  if (inv.units.empty()) fmt::print("No uncore PMU units found.\n");
  if (!inv.warnings.empty())
    fmt::print("\n{} warning{} (on stderr)\n", inv.warnings.size(), inv.warnings.size() == 1 ? "" : "s");
}

}  // namespace pmukit::tools
