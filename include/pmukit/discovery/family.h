// pmukit -- what discovery knows of a PMU family: an interface each family implements.
//
// A family (Intel discovery uncore, CoreSight, ...) lives in one folder, src/families/<name>/,
// with its register map, discovery, layout, driver, simulator model and snapshot writer. The core
// layers know it only through interfaces like this one, one per layer (pmu::FamilyDriver,
// sim::FamilyModel, snapshot::FamilySpec), which the family's one object implements; every
// PmuUnit points at the family that found it, and the core dispatches through that pointer. The
// list of families is families/registry.cpp's, and only its.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmukit/discovery/footprint.h"
#include "pmukit/discovery/system.h"

namespace pmukit {
class Machine;
}
namespace pmukit::pci {
struct Device;
}
namespace pmukit::acpi {
struct AcpiDevice;
}
namespace pmukit::platform {
struct CpuModel;
}

namespace pmukit::discovery {

struct Inventory;
struct PmuUnit;

// What discovery reads once, for every family: the families find their units from it.
struct MachineFacts {
  Machine& machine;
  const std::optional<CpuIdentity>& cpu;
  const platform::CpuModel* cpu_model;  // the CPU's entry in the platform database, null when unknown
  const Topology& topology;
  const std::vector<pci::Device>& devices;            // the PCI scan
  const std::vector<acpi::AcpiDevice>& acpi_devices;  // ACPI devices (sysfs)
};

class Family {
 public:
  virtual ~Family() = default;
  // The inventory's name for the family ("intel-uncore", "coresight", ...).
  virtual std::string_view name() const = 0;
  // The family a unit shows in the inventory: name(), unless the family has kinds of units
  // (Tegra410: "t410-c2c", "t410-cmem-latency").
  virtual std::string_view unit_family(const PmuUnit& unit) const {
    (void)unit;
    return name();
  }
  // Appends the family's units to the inventory. Problems with one table, node or device are
  // warnings in the inventory; the rest is still found.
  virtual void discover(const MachineFacts& facts, Inventory& inventory) const = 0;
  // Runs after every family's discover(), in the same order: what needs the whole inventory.
  virtual void finish(const MachineFacts& facts, Inventory& inventory) const {
    (void)facts;
    (void)inventory;
  }
  // The unit's family-specific fields, as pmu-discover --json shows them.
  virtual nlohmann::ordered_json detail_json(const PmuUnit& unit) const = 0;
  // Where the unit's registers are (footprint.h): every register a driver of the family may
  // write, so that two units on one register are found (unit_overlap.h).
  virtual void footprint(const PmuUnit& unit, Footprint& f) const = 0;
  // Where the unit came from, for a warning that names two units of one name ("APMT node 3");
  // "" when the name says enough.
  // The family's section of pmu-discover's text view (--dump): its units and tables as lines,
  // each ending in '\n'; "" when the inventory holds none of its units.
  virtual std::string text_section(const Inventory& inventory, bool verbose) const {
    (void)inventory, (void)verbose;
    return "";
  }
  virtual std::string origin(const PmuUnit& unit) const {
    (void)unit;
    return {};
  }
};

}  // namespace pmukit::discovery
