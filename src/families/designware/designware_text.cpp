// pmukit -- the DesignWare RAS DES section of pmu-discover's text view.
#include "designware_text.h"

#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/discovery/text_view.h"
#include "pmukit/families/designware/designware_unit.h"

namespace pmukit::families {

namespace {

using discovery::DwcUnit;
using discovery::PmuUnit;

std::string port_line(const PmuUnit& u, bool verbose) {
  const auto& d = *u.as<DwcUnit>();
  std::vector<std::string> regs;
  for (const auto& reg : d.registers) regs.push_back(fmt::format("{}@{:#x}", reg.name, reg.offset));
  return fmt::format(
      "    {:<22} {:<13} {:<20} {:<16} {:>5}  {}\n", u.name, d.root_port.str(),
      fmt::format("{} {:04x}:{:04x}", d.vendor_name, d.vendor, d.device),
      fmt::format("@{:#x} len {:#x}", d.vsec_offset, d.vsec_length), d.lanes ? fmt::format("x{}", d.lanes) : "?",
      verbose ? fmt::format("{}", fmt::join(regs, " ")) : fmt::format("{} ... {}", regs.front(), regs.back()));
}

// The other names the units go by, in the same order (Anolis OS kernel), if any.
std::string aliases_line(const std::vector<const PmuUnit*>& units, bool verbose) {
  std::vector<std::string> aliases;
  for (const auto* u : units)
    for (const auto& a : u->aliases) aliases.push_back(a.name);
  if (aliases.empty()) return "";
  return fmt::format("  also named, in the same order (Anolis OS kernel; pmu-raw -e takes either): {}\n",
                     verbose || aliases.size() <= 2
                         ? fmt::format("{}", fmt::join(aliases, ", "))
                         : fmt::format("{}, {}, ... {}", aliases[0], aliases[1], aliases.back()));
}

}  // namespace

std::string designware_text_section(const discovery::Inventory& inv, bool verbose) {
  auto units = discovery::units_of<DwcUnit>(inv);
  if (units.empty()) return "";
  std::string out;
  auto to = std::back_inserter(out);
  fmt::format_to(to,
                 "\nDesignWare PCIe RAS DES: {} root ports (each: lane event counters of 32 bits, 4 or 8 in groups "
                 "0-4; a 64-bit time-based counter)\n",
                 units.size());
  fmt::format_to(to, "    {:<22} {:<13} {:<20} {:<16} {:>5}  {}\n", "KERNEL PMU", "ROOT PORT", "VENDOR", "RAS DES VSEC",
                 "LANES", "REGISTERS (config space)");
  for (const auto* u : units) out += port_line(*u, verbose);
  fmt::format_to(to, "  filters: {}\n", discovery::filter_list(*units.front(), verbose));
  fmt::format_to(to, "  event groups:\n");
  for (const auto& g : units.front()->as<DwcUnit>()->event_groups) fmt::format_to(to, "    {}\n", g);
  return out + aliases_line(units, verbose) + discovery::notes_text(units);
}

}  // namespace pmukit::families
