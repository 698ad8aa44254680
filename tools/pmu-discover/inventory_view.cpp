// pmu-discover -- text rendering of the inventory: the platform, each family's section, the NVIDIA
// root-port map, and why nothing was found.
#include "inventory_view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/discovery/access_report.h"
#include "pmukit/families/registry.h"

namespace pmukit::tools {

namespace {

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
  // Each family's section, as the family writes it (discovery::Family::text_section).
  for (const auto* family : families::all()) fmt::print("{}", family->text_section(inv, verbose));
  print_root_ports(r);
  if (inv.units.empty()) fmt::print("No uncore PMU units found.\n");
  for (const auto& why : why_none) fmt::print("  why: {}\n", why);
  if (!inv.warnings.empty())
    fmt::print("\n{} warning{} (on stderr)\n", inv.warnings.size(), inv.warnings.size() == 1 ? "" : "s");
}

}  // namespace pmukit::tools
