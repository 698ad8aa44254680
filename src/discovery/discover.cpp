// pmukit -- reads what every family needs once, and runs the families' discoverers in order.
#include "pmukit/discovery/discover.h"

#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/unit_overlap.h"
#include "pmukit/platform/database.h"

namespace pmukit::discovery {

namespace {

// A machine whose CPU model names no platform (Arm: /proc/cpuinfo has no model the database
// knows) is named by its PMUs: the first unit whose kind says which platform has it.
// The database parses only the pmus/ file defining each kind asked about.
void platform_from_units(const platform::Database& db, Inventory& inv) {
  for (const auto& u : inv.units) {
    const platform::PmuKind* kind = db.pmu_kind(u.pmu_kind);
    if (!kind || !kind->platform) continue;
    inv.platform = kind->platform->name;
    inv.platform_description = kind->platform->description;
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
  if (r.inventory.platform.empty()) platform_from_units(db, r.inventory);
  return r;
}

}  // namespace pmukit::discovery
