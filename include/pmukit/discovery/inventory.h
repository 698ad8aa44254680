// pmukit -- the uniform inventory of PMU units every family's discovery produces (family.h; the
// families are in src/families/). Downstream code (programming, perf mapping, output) never
// re-checks the CPU model: everything it needs is here, and what only one family knows is in the
// unit's details, which that family reads.
#pragma once

#include <any>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/discovery/family.h"

namespace pmukit::discovery {

// A filter the unit accepts, as a perf format term ("root_port", "config1:0-9").
struct FilterField {
  std::string name;
  std::string format;
  std::string help;
};

// Another kernel's name for a unit, and how that kernel reports counts: pmu-raw counts an event
// named through the alias the way that kernel would, so its users' formulas stay right.
struct UnitAlias {
  std::string name;
  bool hardware_units = false;  // counts as the hardware gives them (no x16 for DesignWare payload)
};

struct PmuUnit {
  // The family that found the unit: what it is and how to program, model and show it (family.h).
  // Set with the details by set_detail().
  const Family* family = nullptr;
  std::string name;                // the kernel PMU name: uncore_imc_3, nvidia_scf_pmu_0, dwc_rootport_3018
  std::vector<UnitAlias> aliases;  // names other kernels give it (Anolis OS: pcie_bdf_200), for -e
  std::string type_name;           // "imc", "scf", "pcie", "rasdes"
  std::string pmu_kind;            // platform PMU kind: formats and named events
  int socket = -1;
  int die = -1;
  unsigned num_counters = 0;
  unsigned counter_width = 0;
  std::vector<FilterField> filters;
  std::vector<std::string> notes;  // quirks and flags shown beside the unit
  // Units that claim one of this unit's registers (discovery/unit_overlap.h): never programmed
  // together with it.
  std::vector<std::string> shares_registers_with;
  // The family's own fields (IntelUnit, CmnUnit, ...: its unit header in families/<name>/).
  std::any detail;

  // The details, and the family they belong to (each detail type names its family).
  template <class T>
  void set_detail(T d) {
    family = &T::family();
    detail = std::move(d);
  }

  const UnitAlias* alias(std::string_view pmu_name) const {
    for (const auto& a : aliases)
      if (a.name == pmu_name) return &a;
    return nullptr;
  }

  // The details as the family's type, or null when the unit is of another family.
  template <class T>
  const T* as() const {
    return std::any_cast<T>(&detail);
  }
  template <class T>
  T* as() {
    return std::any_cast<T>(&detail);
  }
};

// The family the inventory shows for a unit: "intel-uncore", "t410-c2c", ...
std::string_view family_name(const PmuUnit& unit);

// Which NVIDIA PCIe PMU instance (socket, RC) and root-port filter bit a root port maps to.
struct RootPortMap {
  Bdf device;  // the function carrying the mapping (a root port on real systems)
  bool is_root_port = true;
  std::uint16_t device_id = 0;
  std::string scheme;  // "tegra410" (RC-mapping DVSEC) or "grace" (derived from the domain)
  std::string source;  // "DVSEC 10de:0004 @0x200" or "derived from PCI domain 0x0008 (Grace guide)"
  std::optional<std::uint16_t> dvsec_offset;
  int bus = -1, segment = -1;  // DVSEC bytes +0xc, +0xd (Tegra410 only)
  int rp = -1, rc = -1, socket = -1;
  std::vector<std::string> pmus;  // kernel PMUs that see traffic from below this root port
};

struct ApmtSummary {
  std::string source;
  unsigned revision = 0;
  unsigned nodes = 0;
  bool checksum_ok = true;
  std::string oem_id, oem_table_id;
};

// One Intel discovery table: one die's worth of units.
struct IntelTable {
  std::string source;  // "0000:6a:03.1 DVSEC @0x100 BAR0" or "MSR 0x201e on CPU 0"
  std::string origin;  // "pci" or "msr" (platform ignore lists are per origin)
  std::optional<Bdf> device;
  std::uint64_t base = 0;      // physical address of the global record
  std::string mapped_through;  // the file the table was read from
  int socket = -1;
  int die = -1;
  std::string socket_source;  // "NUMA node 1", "package of CPU 4", "order found (NUMA unknown)"
  std::uint64_t global[3] = {0, 0, 0};
  unsigned stride = 0;  // bytes between unit records
  unsigned max_units = 0;
  unsigned access_type = 0;
  std::uint64_t global_ctl = 0;
  unsigned valid_units = 0;
  unsigned skipped_units = 0;
  unsigned empty_records = 0;  // all-zero unit records (padding), not counted as skipped
};

struct Inventory {
  std::string platform;  // "spr", "" when the CPU is not in the database
  std::string platform_description;
  std::vector<IntelTable> intel_tables;
  std::vector<PmuUnit> units;
  std::optional<ApmtSummary> apmt;      // the ACPI APMT, when the machine has one
  std::vector<RootPortMap> root_ports;  // NVIDIA PCIe RC mapping of root ports
  std::vector<std::string> warnings;    // every skipped unit and table, with the reason

  // Units of one kernel PMU name, or of a type name that expands to all its boxes
  // ("uncore_imc" -> uncore_imc_0..7 on every socket).
  std::vector<const PmuUnit*> find(std::string_view pmu_name) const;
};

}  // namespace pmukit::discovery
