// pmukit -- the one list of PMU families.
#include "pmukit/families/registry.h"

#include "pmukit/families/amd/amd_family.h"
#include "pmukit/families/amd/amd_iommu_family.h"
#include "pmukit/families/cmn/cmn_family.h"
#include "pmukit/families/coresight/coresight_family.h"
#include "pmukit/families/designware/designware_family.h"
#include "pmukit/families/intel/intel_family.h"
#include "pmukit/families/tegra410/tegra410_family.h"
#include "pmukit/snapshot/machine_spec.h"

namespace pmukit::families {

std::span<const discovery::Family* const> all() {
  static const discovery::Family* const families[] = {
      &intel_family(), &coresight_family(), &designware_family(), &tegra410_family(),
      &cmn_family(),   &amd_family(),       &amd_iommu_family(),
  };
  return families;
}

discovery::DiscoveryResult discover(Machine& machine) {
  return discovery::discover(machine, all());
}

std::span<const snapshot::spec::Section> spec_sections() {
  static const std::vector<snapshot::spec::Section> sections = [] {
    std::vector<snapshot::spec::Section> out;
    for (const discovery::Family* f : all())
      if (const auto* s = dynamic_cast<const snapshot::FamilySpec*>(f))
        out.insert(out.end(), s->spec_sections().begin(), s->spec_sections().end());
    return out;
  }();
  return sections;
}

void build_from_spec(const nlohmann::json& spec, const std::filesystem::path& root, std::string_view origin) {
  snapshot::build_from_spec(spec, root, origin, spec_sections());
}

void build_bundled(std::string_view name, const std::filesystem::path& root) {
  snapshot::build_bundled(name, root, spec_sections());
}

}  // namespace pmukit::families
