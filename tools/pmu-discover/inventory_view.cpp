// pmu-discover -- text rendering of the inventory.
#include "inventory_view.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cmn_view.h"

#include "pmukit/discovery/access_report.h"
#include "pmukit/families/coresight/coresight_unit.h"
#include "pmukit/families/designware/designware_unit.h"
#include "pmukit/families/intel/intel_layout.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/families/tegra410/tegra410_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/unit_layout.h"

namespace pmukit::tools {

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

void print_intel(const discovery::DiscoveryResult& r, bool verbose) {
  const auto& inv = r.inventory;
  std::map<std::size_t, std::vector<const PmuUnit*>> by_table;
  for (const auto& u : inv.units)
    if (const auto* iu = u.as<IntelUnit>()) by_table[iu->table].push_back(&u);
  std::size_t valid = 0, skipped = 0, empty = 0;
  for (const auto& t : inv.intel_tables) valid += t.valid_units, skipped += t.skipped_units, empty += t.empty_records;
  fmt::print("Intel uncore PMON discovery: {} table{}, {} units ({} skipped{})\n", inv.intel_tables.size(),
             inv.intel_tables.size() == 1 ? "" : "s", valid, skipped,
             empty ? fmt::format(", {} empty record{}", empty, empty == 1 ? "" : "s") : "");
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
    fmt::print("    {:<8} {:>4} {:>4}  {:<6} {:<22} {:<20} {:<20} {:>5}  {}\n", "TYPE", "NUM", "BOX", "ACCESS",
               "BOX CTL", "CONTROLS", "COUNTERS", "CTRS", "KERNEL PMU");
    std::string last_notes;
    for (const PmuUnit* u : units) {
      const auto& iu = *u->as<IntelUnit>();
      const auto layout = pmu::make_layout(*u, platform::Database::builtin());
      std::string type = u->type_name.empty() ? "-" : u->type_name;
      fmt::print("    {:<8} {:>4} {:>4}  {:<6} {:<22} {:<20} {:<20} {:>5}  {}\n", type, iu.type, iu.box_id,
                 discovery::access_name(iu.access), where(layout.at(Role::BoxControl)),
                 series(layout, Role::CounterControl), series(layout, Role::Counter),
                 fmt::format("{}x{}", u->num_counters, u->counter_width), u->name);
      std::string notes;
      for (const auto& n : u->notes) notes += n + "\n";
      if (verbose && layout.find(Role::FixedCounter))
        fmt::print("    {:>49}fixed counter {:#x}, control {:#x}\n", "",
                   pmu::location(layout.at(Role::FixedCounter).at), pmu::location(layout.at(Role::FixedControl).at));
      if (!notes.empty() && notes != last_notes)
        for (const auto& n : u->notes) fmt::print("      ! {}: {}\n", type, n);
      last_notes = notes;
    }
  }
}

// Each distinct note once per section, with the units it applies to.
void print_notes(const std::vector<const PmuUnit*>& units) {
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  for (const auto* u : units)
    for (const auto& n : u->notes) {
      auto it = std::find_if(notes.begin(), notes.end(), [&](const auto& p) { return p.first == n; });
      if (it == notes.end())
        notes.push_back({n, {u->name}});
      else
        it->second.push_back(u->name);
    }
  for (const auto& [note, names] : notes) {
    std::string who = names.size() <= 3 ? fmt::format("{}", fmt::join(names, ", "))
                                        : fmt::format("{}, {} and {} more", names[0], names[1], names.size() - 2);
    fmt::print("  ! {}: {}\n", who, note);
  }
}

std::string filter_list(const PmuUnit& u, bool verbose) {
  if (u.filters.empty()) return "none";
  std::vector<std::string> parts;
  for (const auto& f : u.filters) parts.push_back(verbose ? fmt::format("{} ({})", f.name, f.format) : f.name);
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The units whose details are a T (one family's), by socket.
template <class T>
std::vector<const PmuUnit*> units_of(const discovery::Inventory& inv) {
  std::vector<const PmuUnit*> out;
  for (const auto& u : inv.units)
    if (u.as<T>()) out.push_back(&u);
  std::stable_sort(out.begin(), out.end(), [](const PmuUnit* a, const PmuUnit* b) { return a->socket < b->socket; });
  return out;
}

std::string socket_heading(int socket) {
  return socket < 0 ? "Socket unknown" : fmt::format("Socket {}", socket);
}

void print_coresight(const discovery::DiscoveryResult& r, bool verbose) {
  auto units = units_of<discovery::CoreSightUnit>(r.inventory);
  const auto& apmt = r.inventory.apmt;
  if (!apmt && units.empty()) return;
  fmt::print("\nArm CoreSight PMUs");
  if (apmt)
    fmt::print(" (APMT {}: revision {}, {} nodes, checksum {}, OEM \"{}\" \"{}\")", apmt->source, apmt->revision,
               apmt->nodes, apmt->checksum_ok ? "ok" : "WRONG", apmt->oem_id, apmt->oem_table_id);
  fmt::print(": {} units\n", units.size());
  int socket = -2;
  for (const auto* u : units) {
    const auto& c = *u->as<discovery::CoreSightUnit>();
    if (u->socket != socket) {
      socket = u->socket;
      fmt::print("\n{}\n", socket_heading(socket));
      fmt::print("    {:<30} {:<30} {:>4}  {:<12} {:<12} {:>6}  {}\n", "KERNEL PMU", "PRODUCT", "NODE", "PAGE 0",
                 "PAGE 1", "CTRS", "PMIIDR");
    }
    fmt::print("    {:<30} {:<30} {:>4}  {:<12} {:<12} {:>6}  {:#010x} ({})\n", u->name,
               fmt::format("{} {}", c.implementer, c.product), c.apmt_id, fmt::format("{:#x}", c.base0),
               c.dual_page ? fmt::format("{:#x}", c.base1) : "-",
               fmt::format("{}x{}", u->num_counters, u->counter_width), c.pmiidr, c.pmiidr_source);
    fmt::print("      filters: {}\n", filter_list(*u, verbose));
    if (c.rc >= 0) fmt::print("      RC {} from {}\n", c.rc, c.rc_source);
    if (verbose) {
      fmt::print("      PMCFGR {:#010x} PMCR {:#010x}, cycle counter {}, {}-bit atomic access {}, driver {}, {}{}\n",
                 c.pmcfgr, c.pmcr, c.has_cycle_counter ? "yes (index 31)" : "no", 64, c.atomic64 ? "yes" : "no",
                 c.kernel_module, c.platform_device, c.acpi_device.empty() ? "" : ", ACPI " + c.acpi_device);
      fmt::print("      CPUs {} (NUMA node {}), read through {}\n", fmt::join(c.cpus, ","), c.numa_node,
                 c.mapped_through);
    }
  }
  print_notes(units);
}

void print_dwc(const discovery::DiscoveryResult& r, bool verbose) {
  auto units = units_of<discovery::DwcUnit>(r.inventory);
  if (units.empty()) return;
  fmt::print("\nDesignWare PCIe RAS DES: {} root ports (each: lane event counters of 32 bits, 4 or 8 in groups 0-4; "
             "a 64-bit time-based counter)\n",
             units.size());
  fmt::print("    {:<22} {:<13} {:<20} {:<16} {:>5}  {}\n", "KERNEL PMU", "ROOT PORT", "VENDOR", "RAS DES VSEC",
             "LANES", "REGISTERS (config space)");
  for (const auto* u : units) {
    const auto& d = *u->as<discovery::DwcUnit>();
    std::vector<std::string> regs;
    for (const auto& reg : d.registers) regs.push_back(fmt::format("{}@{:#x}", reg.name, reg.offset));
    fmt::print("    {:<22} {:<13} {:<20} {:<16} {:>5}  {}\n", u->name, d.root_port.str(),
               fmt::format("{} {:04x}:{:04x}", d.vendor_name, d.vendor, d.device),
               fmt::format("@{:#x} len {:#x}", d.vsec_offset, d.vsec_length),
               d.lanes ? fmt::format("x{}", d.lanes) : "?",
               verbose ? fmt::format("{}", fmt::join(regs, " ")) : fmt::format("{} ... {}", regs.front(), regs.back()));
  }
  fmt::print("  filters: {}\n", filter_list(*units.front(), verbose));
  fmt::print("  event groups:\n");
  for (const auto& g : units.front()->as<discovery::DwcUnit>()->event_groups) fmt::print("    {}\n", g);
  std::vector<std::string> aliases;
  for (const auto* u : units)
    for (const auto& a : u->aliases) aliases.push_back(a.name);
  if (!aliases.empty())
    fmt::print("  also named, in the same order (Anolis OS kernel; pmu-raw -e takes either): {}\n",
               verbose || aliases.size() <= 2 ? fmt::format("{}", fmt::join(aliases, ", "))
                                              : fmt::format("{}, {}, ... {}", aliases[0], aliases[1], aliases.back()));
  print_notes(units);
}

void print_t410(const discovery::DiscoveryResult& r, bool verbose) {
  auto units = units_of<discovery::T410Unit>(r.inventory);
  if (units.empty()) return;
  fmt::print("\nTegra410 PMU blocks outside CoreSight (ACPI NVDA2020-2023): {} units\n", units.size());
  int socket = -2;
  for (const auto* u : units) {
    const auto& t = *u->as<discovery::T410Unit>();
    if (u->socket != socket) {
      socket = u->socket;
      fmt::print("\n{}\n", socket_heading(socket));
    }
    fmt::print("    {:<28} {:<14} {} {}  {}x{}", u->name, t.interface, t.acpi_device, t.acpi_path, u->num_counters,
               u->counter_width);
    if (!t.peer.empty()) fmt::print("  peer: {}", t.peer);
    fmt::print("\n");
    if (t.exposed) {
      fmt::print("      {} instances {:#x}..{:#x} ({:#x} bytes each), broadcast {}\n", t.instance_bases.size(),
                 t.instance_bases.front(), t.instance_bases.back(), t.region_size,
                 t.broadcast_base ? fmt::format("{:#x}", *t.broadcast_base) : "none");
      if (verbose) fmt::print("      from {}\n", t.resources_source);
    } else {
      fmt::print("      MMIO resources not visible ({} ranges listed)\n", t.ranges_listed);
    }
    if (!u->filters.empty()) fmt::print("      filters: {}\n", filter_list(*u, verbose));
  }
  print_notes(units);
}

void print_root_ports(const discovery::DiscoveryResult& r) {
  const auto& maps = r.inventory.root_ports;
  if (maps.empty()) return;
  fmt::print("\nNVIDIA PCIe RC mapping: {} root ports (pmu-rcmap BDF gives the filter for any device)\n", maps.size());
  for (const auto& m : maps)
    fmt::print("    {:<13} socket {}  {}RP {}   {:<60} {}\n", m.device.str(), m.socket,
               m.rc >= 0 ? fmt::format("RC {}  ", m.rc) : std::string(), m.rp,
               fmt::format("{}", fmt::join(m.pmus, ", ")),
               m.scheme == "grace" ? "(derived from the domain number)" : fmt::format("({})", m.source));
}

}  // namespace

void print_inventory_text(const discovery::DiscoveryResult& r, bool verbose, const std::vector<std::string>& why_none) {
  const auto& inv = r.inventory;
  if (inv.platform.empty() && r.cpu && r.cpu->vendor.empty())
    fmt::print(
        "Platform: Arm CPU implementer {:#04x} part {:#05x} (Arm units are identified by their own ID registers)\n",
        r.cpu->arm_implementer, r.cpu->arm_part);
  else if (inv.platform.empty())
    fmt::print("Platform: {} (not in pmukit's database: generic names)\n",
               r.cpu && r.cpu->x86_identity() ? discovery::cpu_name(*r.cpu)
                                              : std::string("unknown CPU (/proc/cpuinfo names no vendor, family and "
                                                            "model)"));
  else
    fmt::print("Platform: {} ({})\n", inv.platform_description, inv.platform);
  if (!inv.intel_tables.empty()) print_intel(r, verbose);
  print_coresight(r, verbose);
  print_t410(r, verbose);
  print_dwc(r, verbose);
  print_cmn_summary(inv, verbose);
  print_root_ports(r);
  if (inv.units.empty()) fmt::print("No uncore PMU units found.\n");
  for (const auto& why : why_none) fmt::print("  why: {}\n", why);
  if (!inv.warnings.empty())
    fmt::print("\n{} warning{} (on stderr)\n", inv.warnings.size(), inv.warnings.size() == 1 ? "" : "s");
}

}  // namespace pmukit::tools
