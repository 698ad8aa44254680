// pmukit -- the Tegra410 section of pmu-discover's text view.
#include "tegra410_text.h"

#include <iterator>

#include <fmt/format.h>

#include "pmukit/discovery/text_view.h"
#include "pmukit/families/tegra410/tegra410_unit.h"

namespace pmukit::families {

namespace {

using discovery::PmuUnit;
using discovery::T410Unit;

void block_lines(std::string& out, const PmuUnit& u, bool verbose) {
  auto to = std::back_inserter(out);
  const auto& t = *u.as<T410Unit>();
  fmt::format_to(to, "    {:<28} {:<14} {} {}  {}x{}", u.name, t.interface, t.acpi_device, t.acpi_path, u.num_counters,
                 u.counter_width);
  if (!t.peer.empty()) fmt::format_to(to, "  peer: {}", t.peer);
  out += "\n";
  if (t.exposed) {
    fmt::format_to(to, "      {} instances {:#x}..{:#x} ({:#x} bytes each), broadcast {}\n", t.instance_bases.size(),
                   t.instance_bases.front(), t.instance_bases.back(), t.region_size,
                   t.broadcast_base ? fmt::format("{:#x}", *t.broadcast_base) : "none");
    if (verbose) fmt::format_to(to, "      from {}\n", t.resources_source);
  } else {
    fmt::format_to(to, "      MMIO resources not visible ({} ranges listed)\n", t.ranges_listed);
  }
  if (!u.filters.empty()) fmt::format_to(to, "      filters: {}\n", discovery::filter_list(u, verbose));
}

}  // namespace

std::string tegra410_text_section(const discovery::Inventory& inv, bool verbose) {
  auto units = discovery::units_of<T410Unit>(inv);
  if (units.empty()) return "";
  std::string out =
      fmt::format("\nTegra410 PMU blocks outside CoreSight (ACPI NVDA2020-2023): {} units\n", units.size());
  int socket = -2;
  for (const auto* u : units) {
    if (u->socket != socket) {
      socket = u->socket;
      out += fmt::format("\n{}\n", discovery::socket_heading(socket));
    }
    block_lines(out, *u, verbose);
  }
  return out + discovery::notes_text(units);
}

}  // namespace pmukit::families
