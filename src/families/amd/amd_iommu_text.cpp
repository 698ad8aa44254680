// pmukit -- the AMD IOMMU section of pmu-discover's text view.
#include "amd_iommu_text.h"

#include <iterator>

#include <fmt/format.h>

#include "pmukit/discovery/text_view.h"
#include "pmukit/families/amd/amd_iommu_unit.h"

namespace pmukit::families {

namespace {

using discovery::AmdIommuUnit;
using discovery::PmuUnit;

void iommu_lines(std::string& out, const PmuUnit& u, bool verbose) {
  auto to = std::back_inserter(out);
  const auto& a = *u.as<AmdIommuUnit>();
  fmt::format_to(to, "    {:<16} {} [{:04x}:{:04x}] cap @{:#x}", u.name, a.function.str(), a.vendor, a.device,
                 a.cap_offset);
  if (a.base_enabled) fmt::format_to(to, "  MMIO {:#x}", a.mmio_base);
  if (a.usable())
    fmt::format_to(to, "  {} banks x {} counters ({}-bit)\n", a.banks, a.counters, u.counter_width);
  else
    out += "  counters not read\n";
  if (verbose) {
    fmt::format_to(to, "      region: {}\n", a.region_source);
    if (a.ext_features) fmt::format_to(to, "      extended features {:#x}\n", *a.ext_features);
    if (a.cntr_conf) fmt::format_to(to, "      counter configuration {:#x}\n", *a.cntr_conf);
  }
  if (!u.filters.empty()) fmt::format_to(to, "      filters: {}\n", discovery::filter_list(u, verbose));
}

}  // namespace

std::string amd_iommu_text_section(const discovery::Inventory& inv, bool verbose) {
  auto units = discovery::units_of<AmdIommuUnit>(inv);
  if (units.empty()) return "";
  std::string out =
      fmt::format("\nAMD IOMMU performance counters (PCI class 0806, capability 0Fh): {} units\n", units.size());
  int socket = -2;
  for (const auto* u : units) {
    if (u->socket != socket) {
      socket = u->socket;
      out += fmt::format("\n{}\n", discovery::socket_heading(socket));
    }
    iommu_lines(out, *u, verbose);
  }
  return out + discovery::notes_text(units);
}

}  // namespace pmukit::families
