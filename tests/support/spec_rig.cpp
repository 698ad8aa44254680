// pmukit tests -- a machine written from a machine spec to a temporary directory and discovered.
#include "support/spec_rig.h"

#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"

namespace pmukit::test {

SpecRig::SpecRig(const nlohmann::json& spec) {
  families::build_from_spec(spec, dir.path() / "m");
  machine = std::make_unique<Machine>(MachineOptions{dir.path() / "m"});
  found = families::discover(*machine);
}

const discovery::PmuUnit& SpecRig::unit(const std::string& name) const {
  for (const auto& u : found.inventory.units)
    if (u.name == name) return u;
  throw Error(name + ": no such unit");
}

}  // namespace pmukit::test
