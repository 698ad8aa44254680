// pmukit -- runs the discoverers in order and merges their units.
#include "pmukit/discovery/discover.h"

#include "pmukit/discovery/intel_pmon.h"
#include "pmukit/platform/database.h"

namespace pmukit::discovery {

DiscoveryResult discover(Machine& machine) {
  DiscoveryResult r;
  const auto& db = platform::Database::builtin();
  r.cpu = read_cpu_identity(machine);
  const platform::IntelUncore* intel = nullptr;
  if (r.cpu) {
    if (const auto* model = db.match_cpu(r.cpu->vendor, r.cpu->family, r.cpu->model)) {
      r.inventory.platform = model->name;
      r.inventory.platform_description = model->description;
      if (!model->intel_uncore.empty()) intel = db.intel_uncore(model->intel_uncore);
    }
  }
  r.topology = read_topology(machine);
  r.devices = pci::scan(machine);
  // Intel PMON tables are found by what the hardware exposes, not by the CPU model: an unknown
  // model still decodes, with generic names.
  r.intel_table_mmaps = discover_intel(machine, r.devices, r.topology, intel, r.inventory).mmap_calls;
  return r;
}

}  // namespace pmukit::discovery
