// pmukit -- inventory helpers.
#include "pmukit/discovery/inventory.h"

#include "pmukit/util/text.h"

namespace pmukit::discovery {

std::string_view family_name(Family f) {
  switch (f) {
  case Family::IntelUncore:
    return "intel-uncore";
  case Family::CoreSight:
    return "coresight";
  case Family::DwcRasDes:
    return "dwc-rasdes";
  case Family::T410C2c:
    return "t410-c2c";
  case Family::T410CmemLatency:
    return "t410-cmem-latency";
  case Family::Cmn:
    return "arm-cmn";
  }
  return "?";
}

std::string_view access_name(RegAccess a) {
  switch (a) {
  case RegAccess::Msr:
    return "MSR";
  case RegAccess::Mmio:
    return "MMIO";
  case RegAccess::PciConfig:
    return "PCI";
  }
  return "?";
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
