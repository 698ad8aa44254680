// pmukit -- runs the discoverers in order and merges their units.
#include "pmukit/discovery/discover.h"

#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/cmn.h"
#include "pmukit/discovery/coresight.h"
#include "pmukit/discovery/dwc_rasdes.h"
#include "pmukit/discovery/intel_pmon.h"
#include "pmukit/discovery/rcmap.h"
#include "pmukit/discovery/t410_blocks.h"
#include "pmukit/discovery/unit_overlap.h"
#include "pmukit/platform/database.h"

namespace pmukit::discovery {

DiscoveryResult discover(Machine& machine) {
  DiscoveryResult r;
  const auto& db = platform::Database::builtin();
  r.cpu = read_cpu_identity(machine);
  const platform::IntelUncore* intel = nullptr;
  if (r.cpu && r.cpu->x86_identity()) {
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
  // Arm and PCIe-vendor units are found the same way: by what firmware and config space describe.
  auto acpi_devices = acpi::list_devices(machine);
  r.coresight_mmaps = discover_coresight(machine, r.topology, acpi_devices, r.inventory).mmaps;
  discover_dwc_rasdes(machine, r.devices, r.topology, r.inventory);
  discover_t410_blocks(machine, acpi_devices, r.inventory);
  discover_cmn(machine, r.topology, acpi_devices, r.inventory);
  // After every family: a register two units claim is found whichever families they are.
  warn_overlapping_units(r.inventory);
  r.inventory.root_ports = map_root_ports(machine, r.devices, r.inventory.warnings);
  return r;
}

}  // namespace pmukit::discovery
