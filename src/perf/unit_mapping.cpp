// pmukit -- discovered units and the kernel's perf PMUs.
#include "pmukit/perf/unit_mapping.h"

#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/util/error.h"

namespace pmukit::perf {

std::vector<UnitMapping> map_units(const Machine& machine, const discovery::Inventory& inventory) {
  std::vector<UnitMapping> out;
  for (const auto& u : inventory.units) {
    UnitMapping m{u.name, u.name};
    std::vector<std::string> names{u.name};
    for (const auto& a : u.aliases) names.push_back(a.name);  // the Anolis OS kernel's pcie_bdf_200
    for (const auto& name : names) {
      try {
        if (auto pmu = read_pmu(machine, name)) {
          m.perf = name;
          m.present = true;
          m.type = pmu->type;
          m.cpumask = pmu->cpumask;
          break;
        }
      } catch (const Error&) {
        // A malformed kernel PMU directory is the perf backend's problem to report, not discovery's.
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace pmukit::perf
