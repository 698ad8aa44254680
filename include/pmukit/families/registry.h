// pmukit -- the PMU families pmukit knows: the one list of them, and the entry points that take it.
//
// The core layers know a family only through the interfaces it implements (discovery::Family,
// pmu::FamilyDriver, sim::FamilyModel, snapshot::FamilySpec) and reach it through the units it
// found; what needs every family -- running discovery, building a machine from a spec -- takes
// the list from here. Adding a family is docs/architecture.md's recipe: a folder, a line below.
#pragma once

#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pmukit/discovery/discover.h"
#include "pmukit/discovery/family.h"
#include "pmukit/snapshot/spec_context.h"

namespace pmukit {
class Machine;
}

namespace pmukit::families {

// Every family, in the order discovery runs them (the inventory lists units in this order).
std::span<const discovery::Family* const> all();

// discovery::discover() with every family.
discovery::DiscoveryResult discover(Machine& machine);

// Every family's machine-spec sections (snapshot::FamilySpec), and the spec builders with them.
std::span<const snapshot::spec::Section> spec_sections();
void build_from_spec(const nlohmann::json& spec, const std::filesystem::path& root, std::string_view origin = {});
void build_bundled(std::string_view name, const std::filesystem::path& root);

}  // namespace pmukit::families
