// pmukit -- reads what every family needs once, and runs the families' discoverers in order.
#include "pmukit/discovery/discover.h"

#include <map>
#include <nlohmann/json.hpp>

#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/unit_overlap.h"
#include "pmukit/platform/database.h"
#include "pmukit/platform/embedded.h"

namespace pmukit::discovery {

namespace {

struct KindPlatform {
  std::string name, description;
};

// PMU kind -> the platform a machine with it is: the "platform" of the kind in pmus/*.json (the
// Grace SCF is on Grace only). Read once, and only for a machine whose CPU model names none.
const std::map<std::string, KindPlatform, std::less<>>& kind_platforms() {
  static const auto table = [] {
    std::map<std::string, KindPlatform, std::less<>> out;
    for (const auto& f : platform::embedded_files()) {
      if (!f.path.starts_with("pmus/")) continue;
      const auto doc = nlohmann::json::parse(f.data);
      for (const auto& p : doc.at("pmus"))
        if (p.contains("platform"))
          out[p.at("kind").get<std::string>()] = {p["platform"].at("name"), p["platform"].at("description")};
    }
    return out;
  }();
  return table;
}

// A machine whose CPU model names no platform (Arm: /proc/cpuinfo has no model the database
// knows) is named by its PMUs: the first unit whose kind says which platform has it.
void platform_from_units(Inventory& inv) {
  const auto& table = kind_platforms();
  for (const auto& u : inv.units) {
    auto it = table.find(u.pmu_kind);
    if (it == table.end()) continue;
    inv.platform = it->second.name;
    inv.platform_description = it->second.description;
    return;
  }
}

}  // namespace

DiscoveryResult discover(Machine& machine, std::span<const Family* const> families) {
  DiscoveryResult r;
  const auto& db = platform::Database::builtin();
  r.cpu = read_cpu_identity(machine);
  // Only a CPU whose vendor, family and model were all read is looked up (system.h x86_identity).
  const platform::CpuModel* model = nullptr;
  if (r.cpu && r.cpu->x86_identity()) model = db.match_cpu(r.cpu->vendor, r.cpu->family, r.cpu->model);
  if (model) {
    r.inventory.platform = model->name;
    r.inventory.platform_description = model->description;
  }
  r.topology = read_topology(machine);
  r.devices = pci::scan(machine);
  // Units are found by what the hardware and firmware describe, not by the CPU model: an unknown
  // model still decodes, with generic names.
  const auto acpi_devices = acpi::list_devices(machine);
  const MachineFacts facts{machine, r.cpu, model, r.topology, r.devices, acpi_devices};
  for (const Family* f : families) f->discover(facts, r.inventory);
  // After every family: a register two units claim is found whichever families they are.
  warn_overlapping_units(r.inventory);
  for (const Family* f : families) f->finish(facts, r.inventory);
  if (r.inventory.platform.empty()) platform_from_units(r.inventory);
  return r;
}

}  // namespace pmukit::discovery
