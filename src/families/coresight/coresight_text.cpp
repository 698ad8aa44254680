// pmukit -- the CoreSight section of pmu-discover's text view.
#include "coresight_text.h"

#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/discovery/text_view.h"
#include "pmukit/families/coresight/coresight_unit.h"

namespace pmukit::families {

namespace {

using discovery::CoreSightUnit;
using discovery::PmuUnit;

void unit_lines(std::string& out, const PmuUnit& u, bool verbose) {
  auto to = std::back_inserter(out);
  const auto& c = *u.as<CoreSightUnit>();
  fmt::format_to(to, "    {:<30} {:<30} {:>4}  {:<12} {:<12} {:>6}  {:#010x} ({})\n", u.name,
                 fmt::format("{} {}", c.implementer, c.product), c.apmt_id, fmt::format("{:#x}", c.base0),
                 c.dual_page ? fmt::format("{:#x}", c.base1) : "-",
                 fmt::format("{}x{}", u.num_counters, u.counter_width), c.pmiidr.raw, c.pmiidr_source);
  fmt::format_to(to, "      filters: {}\n", discovery::filter_list(u, verbose));
  if (c.rc >= 0) fmt::format_to(to, "      RC {} from {}\n", c.rc, c.rc_source);
  if (!verbose) return;
  fmt::format_to(to,
                 "      PMCFGR {:#010x} PMCR {:#010x}, cycle counter {}, {}-bit atomic access {}, driver {}, {}{}\n",
                 c.pmcfgr.raw, c.pmcr.raw, c.has_cycle_counter ? "yes (index 31)" : "no", 64, c.atomic64 ? "yes" : "no",
                 c.kernel_module, c.platform_device, c.acpi_device.empty() ? "" : ", ACPI " + c.acpi_device);
  fmt::format_to(to, "      CPUs {} (NUMA node {}), read through {}\n", fmt::join(c.cpus, ","), c.numa_node,
                 c.mapped_through);
}

}  // namespace

std::string coresight_text_section(const discovery::Inventory& inv, bool verbose) {
  auto units = discovery::units_of<CoreSightUnit>(inv);
  const auto& apmt = inv.apmt;
  if (!apmt && units.empty()) return "";
  std::string out;
  auto to = std::back_inserter(out);
  fmt::format_to(to, "\nArm CoreSight PMUs");
  if (apmt)
    fmt::format_to(to, " (APMT {}: revision {}, {} nodes, checksum {}, OEM \"{}\" \"{}\")", apmt->source,
                   apmt->revision, apmt->nodes, apmt->checksum_ok ? "ok" : "WRONG", apmt->oem_id, apmt->oem_table_id);
  fmt::format_to(to, ": {} units\n", units.size());
  int socket = -2;
  for (const auto* u : units) {
    if (u->socket != socket) {
      socket = u->socket;
      fmt::format_to(to, "\n{}\n", discovery::socket_heading(socket));
      fmt::format_to(to, "    {:<30} {:<30} {:>4}  {:<12} {:<12} {:>6}  {}\n", "KERNEL PMU", "PRODUCT", "NODE",
                     "PAGE 0", "PAGE 1", "CTRS", "PMIIDR");
    }
    unit_lines(out, *u, verbose);
  }
  return out + discovery::notes_text(units);
}

}  // namespace pmukit::families
