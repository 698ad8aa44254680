// pmukit -- machines described in JSON (platforms/machines/*.json) and built into snapshot trees.
//
// The bundled synthetic machines (spr-2s, gnr-2s, grace-2s, t410-2s, yitian) are such files; the
// schema is in docs/snapshot-format.md. Each top-level section ("cpuinfo", "topology",
// "pci_devices", "intel_tables", "msrs", ...) is written by one section writer.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace pmukit::snapshot::spec {
struct Section;
}

namespace pmukit::snapshot {

// Writes the machine `spec` describes under `root` (which must be empty or absent), and nothing
// outside it. A mistake in the spec is an Error that starts with `origin` (the spec file) and says
// where the value is and what was expected: "my.json: pcie_root_ports[2].id: expected a hex string
// \"vvvv:dddd\", got the number 5". Counts (sockets, repeats, instances) are capped (util/limits.h).
// `family_sections` are the families' (families::build_from_spec() passes every family's).
void build_from_spec(const nlohmann::json& spec, const std::filesystem::path& root, std::string_view origin,
                     std::span<const spec::Section> family_sections);

struct BundledMachine {
  std::string name;   // "spr-2s"
  std::string label;  // what it is and that it is synthetic
};
std::vector<BundledMachine> bundled_machines();
// Builds a bundled machine; throws UsageError naming the known machines for an unknown name.
void build_bundled(std::string_view name, const std::filesystem::path& root,
                   std::span<const spec::Section> family_sections);

}  // namespace pmukit::snapshot
