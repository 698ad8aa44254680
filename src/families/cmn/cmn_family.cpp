// pmukit -- the Arm CMN family: what the core layers reach through its units.
#include "pmukit/families/cmn/cmn_family.h"

#include "cmn_driver.h"
#include "cmn_model.h"
#include "cmn_spec.h"
#include "pmukit/families/cmn/cmn_discovery.h"
#include "pmukit/families/cmn/cmn_json.h"
#include "pmukit/families/cmn/cmn_layout.h"
#include "pmukit/families/cmn/cmn_text.h"
#include "pmukit/pmu/family_driver.h"

namespace pmukit::families {

namespace {

// Last: the meshes' ACPI devices and perf PMUs are numbered after every other section's.
constexpr snapshot::spec::Section kSpecSections[] = {{"cmn", 100, snapshot::spec::write_cmn}};

class Cmn final : public discovery::Family,
                  public pmu::FamilyDriver,
                  public sim::FamilyModel,
                  public snapshot::FamilySpec {
 public:
  std::string_view name() const override { return "arm-cmn"; }
  std::string text_section(const discovery::Inventory& inventory, bool verbose) const override {
    return cmn_text_section(inventory, verbose);
  }
  void discover(const discovery::MachineFacts& f, discovery::Inventory& inventory) const override {
    discovery::discover_cmn(f.machine, f.topology, f.acpi_devices, inventory);
  }
  // The configuration region.
  void footprint(const discovery::PmuUnit& unit, discovery::Footprint& f) const override {
    const auto& u = *unit.as<discovery::CmnUnit>();
    f.mmio(u.base, u.size);
  }
  nlohmann::ordered_json detail_json(const discovery::PmuUnit& unit) const override {
    return discovery::to_json(*unit.as<discovery::CmnUnit>());
  }
  pmu::UnitLayout layout(const discovery::PmuUnit& unit, const platform::Database& db) const override {
    return pmu::cmn_layout(unit, db);
  }
  std::unique_ptr<pmu::UnitDriver> driver(const pmu::UnitLayout& layout, const platform::Database& db) const override {
    return pmu::make_cmn(layout, db);
  }
  std::unique_ptr<sim::UnitModel> model(const pmu::UnitLayout& layout, const sim::Rates& rates) const override {
    return sim::make_cmn_model(layout, rates);
  }
  std::span<const snapshot::spec::Section> spec_sections() const override { return kSpecSections; }
};

}  // namespace

const discovery::Family& cmn_family() {
  static const Cmn family;
  return family;
}

}  // namespace pmukit::families

const pmukit::discovery::Family& pmukit::discovery::CmnUnit::family() {
  return families::cmn_family();
}
