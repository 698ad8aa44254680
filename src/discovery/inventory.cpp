// pmukit -- inventory helpers.
#include "pmukit/discovery/inventory.h"

#include "pmukit/util/text.h"

namespace pmukit::discovery {

std::string_view family_name(const PmuUnit& unit) {
  return unit.family ? unit.family->unit_family(unit) : "?";
}

std::vector<const PmuUnit*> Inventory::find(std::string_view pmu_name) const {
  std::vector<const PmuUnit*> exact, expanded;
  for (const auto& u : units) {
    if (u.name == pmu_name || u.alias(pmu_name)) exact.push_back(&u);
    // "uncore_imc" names every "uncore_imc_<n>": the prefix plus '_' plus digits only.
    if (numbered_family(u.name) == pmu_name) expanded.push_back(&u);
  }
  return exact.empty() ? expanded : exact;
}

}  // namespace pmukit::discovery
