// pmukit -- the Intel uncore family: what the core layers reach through its units.
#include "pmukit/families/intel/intel_family.h"

#include <fmt/format.h>

#include "iio_spec.h"
#include "intel_driver.h"
#include "intel_model.h"
#include "intel_spec.h"
#include "intel_text.h"
#include "kernel_discovery.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/intel/intel_discovery.h"
#include "pmukit/families/intel/intel_layout.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/family_driver.h"

namespace pmukit::families {

namespace {

using ojson = nlohmann::ordered_json;

// After pci_devices and msrs (a table names its device; an MSR table's pointer is an MSR).
constexpr snapshot::spec::Section kSpecSections[] = {{"intel_tables", 30, snapshot::spec::write_intel_tables},
                                                     {"intel_mmio", 35, snapshot::spec::write_intel_mmio},
                                                     {"intel_iio", 40, snapshot::spec::write_intel_iio}};

// Every register of the box, as wide as intel_regs.h says its access is; an MSR is one register.
void box_footprint(const discovery::IntelUnit& iu, discovery::Footprint& f) {
  const auto w = discovery::unit_widths(iu);
  auto add = [&](std::uint64_t at, unsigned bits) {
    if (iu.access == discovery::RegAccess::Msr)
      f.msr(iu.msr_cpu, at, 1);
    else if (iu.access == discovery::RegAccess::Mmio)
      f.mmio(at, bits / 8);
    else
      f.config(iu.pci_device ? &*iu.pci_device : nullptr, at, bits / 8);
  };
  add(iu.box_ctl, w.box_ctl);
  for (auto a : iu.ctl) add(a, w.ctl);
  for (auto a : iu.ctr) add(a, w.ctr);
  if (iu.status) add(*iu.status, 64);
  if (iu.fixed_ctl) add(*iu.fixed_ctl, w.fixed_ctl);
  if (iu.fixed_ctr) add(*iu.fixed_ctr, w.ctr);
  // The filter MSR is per box but not in the box's block (SPR CHA filters are 0x10 apart at
  // 0x200e + ...), so it is compared like any register.
  if (iu.filter) add(*iu.filter, w.filter);
  if (iu.filter_high) add(*iu.filter_high, w.filter);
}

class Intel final : public discovery::Family,
                    public pmu::FamilyDriver,
                    public sim::FamilyModel,
                    public snapshot::FamilySpec {
 public:
  std::string_view name() const override { return "intel-uncore"; }
  std::string text_section(const discovery::Inventory& inventory, bool verbose) const override {
    return intel_text_section(inventory, verbose);
  }
  // Tables are found by what the hardware exposes, not by the CPU model: an unknown model still
  // decodes, with generic names.
  void discover(const discovery::MachineFacts& f, discovery::Inventory& inventory) const override {
    const platform::IntelUncore* names = nullptr;
    if (f.cpu_model && !f.cpu_model->intel_uncore.empty())
      names = platform::Database::builtin().intel_uncore(f.cpu_model->intel_uncore);
    // Before the discovery tables (Skylake-SP to Ice Lake-SP), the kernel's fixed tables place the
    // boxes; discover_intel names them with the rest.
    if (names) discovery::discover_kernel_boxes(f.machine, f.devices, f.topology, *names, inventory);
    discovery::discover_intel(f.machine, f.devices, f.topology, names, inventory);
  }
  ojson detail_json(const discovery::PmuUnit& unit) const override {
    const auto& u = *unit.as<discovery::IntelUnit>();
    return ojson{{"type", u.type},
                 {"box_id", u.box_id},
                 {"access", discovery::access_name(u.access)},
                 {"box_ctl", hex(u.box_ctl)},
                 {"pci_device", u.pci_device ? ojson(u.pci_device->str()) : ojson(nullptr)},
                 {"ctl", discovery::hex_list(u.ctl)},
                 {"ctr", discovery::hex_list(u.ctr)},
                 {"status", discovery::opt_hex(u.status)},
                 {"fixed_ctl", discovery::opt_hex(u.fixed_ctl)},
                 {"fixed_ctr", discovery::opt_hex(u.fixed_ctr)},
                 {"filter", discovery::opt_hex(u.filter)},
                 {"ctl_offset", u.ctl_offset},
                 {"ctr_offset", u.ctr_offset},
                 {"ctl_step", u.ctl_step},
                 {"ctr_step", u.ctr_step},
                 {"msr_cpu", u.msr_cpu},
                 {"table", u.table},
                 {"table_index", u.table_index},
                 {"raw", ojson::array({hex(u.raw[0]), hex(u.raw[1]), hex(u.raw[2])})}};
  }
  void footprint(const discovery::PmuUnit& unit, discovery::Footprint& f) const override {
    box_footprint(*unit.as<discovery::IntelUnit>(), f);
  }
  std::string origin(const discovery::PmuUnit& unit) const override {
    const auto& iu = *unit.as<discovery::IntelUnit>();
    return fmt::format("table {} unit {}", iu.table, iu.table_index);
  }
  pmu::UnitLayout layout(const discovery::PmuUnit& unit, const platform::Database&) const override {
    return pmu::intel_layout(unit);
  }
  // A box's counters read as zero above the width its discovery table gives.
  std::string implausible_original(const pmu::UnitLayout& layout, const pmu::UnitRegister& r,
                                   std::uint64_t value) const override {
    if (!r.is(pmu::IntelRole::Counter) && !r.is(pmu::IntelRole::FixedCounter)) return "";
    return pmu::above_counter_width(*layout.unit, value);
  }
  std::unique_ptr<pmu::UnitDriver> driver(const pmu::UnitLayout& layout, const platform::Database& db) const override {
    return pmu::make_intel_box(layout, db);
  }
  std::unique_ptr<sim::UnitModel> model(const pmu::UnitLayout& layout, const sim::Rates& rates) const override {
    return sim::make_intel_model(layout, rates);
  }
  std::span<const snapshot::spec::Section> spec_sections() const override { return kSpecSections; }
};

}  // namespace

const discovery::Family& intel_family() {
  static const Intel family;
  return family;
}

}  // namespace pmukit::families

namespace pmukit::discovery {

const Family& IntelUnit::family() {
  return families::intel_family();
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

}  // namespace pmukit::discovery
