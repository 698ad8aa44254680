// pmukit -- the AMD section of pmu-discover's text view: per socket its L3s (one per CCX, with the
// CPUs sharing it), its Data Fabric and its UMCs, each with its counters and the CPU that reads it.
#include "amd_text.h"

#include <iterator>

#include <fmt/format.h>

#include "pmukit/discovery/text_view.h"
#include "pmukit/families/amd/amd_unit.h"
#include "pmukit/util/file.h"

namespace pmukit::families {

namespace {

using discovery::AmdUnit;
using discovery::PmuUnit;

std::string where(const AmdUnit& a) {
  switch (a.kind) {
  case AmdUnit::Kind::L3:
    return fmt::format("L3 {} of CPUs {}", a.l3_id, format_cpu_list(a.cpus));
  case AmdUnit::Kind::Df:
    return "Data Fabric";
  case AmdUnit::Kind::Umc:
    break;
  }
  return fmt::format("memory channel {} (UMC {})", a.umc_channel, a.umc);
}

void unit_lines(std::string& out, const PmuUnit& u, bool verbose) {
  const auto& a = *u.as<AmdUnit>();
  auto to = std::back_inserter(out);
  fmt::format_to(to, "    {:<12} {:<28} {}x{}  MSRs {:#x}-{:#x} on CPU {}\n", u.name, where(a), u.num_counters,
                 u.counter_width, a.msr_base, a.msr_base + 2 * u.num_counters - 1, a.cpu);
  if (verbose) fmt::format_to(to, "      counters: {}; kind {}\n", a.counters_from, u.pmu_kind);
}

}  // namespace

std::string amd_text_section(const discovery::Inventory& inv, bool verbose) {
  auto units = discovery::units_of<AmdUnit>(inv);
  if (units.empty()) return "";
  const auto& first = *units.front()->as<AmdUnit>();
  std::string out = fmt::format("\nAMD uncore ({}, family {:#x}{}): {} units\n", first.generation, first.cpu_family,
                                first.perfmon_v2 ? ", PerfMonV2" : "", units.size());
  int socket = -2;
  for (const auto* u : units) {
    if (u->socket != socket) {
      socket = u->socket;
      out += fmt::format("\n{}\n", discovery::socket_heading(socket));
    }
    unit_lines(out, *u, verbose);
  }
  return out + discovery::notes_text(units);
}

}  // namespace pmukit::families
