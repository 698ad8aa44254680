// pmukit -- the DesignWare RAS DES family: what the core layers reach through its units.
#include "pmukit/families/designware/designware_family.h"

#include "designware_driver.h"
#include "designware_model.h"
#include "designware_text.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/designware/designware_discovery.h"
#include "pmukit/families/designware/designware_layout.h"
#include "pmukit/families/designware/designware_unit.h"
#include "pmukit/pmu/family_driver.h"

namespace pmukit::families {

namespace {

using ojson = nlohmann::ordered_json;

class DesignWare final : public discovery::Family, public pmu::FamilyDriver, public sim::FamilyModel {
 public:
  std::string_view name() const override { return "dwc-rasdes"; }
  std::string text_section(const discovery::Inventory& inventory, bool verbose) const override {
    return designware_text_section(inventory, verbose);
  }
  void discover(const discovery::MachineFacts& f, discovery::Inventory& inventory) const override {
    discovery::discover_dwc_rasdes(f.machine, f.devices, f.topology, inventory);
  }
  // The RAS DES capability in the root port's config space.
  void footprint(const discovery::PmuUnit& unit, discovery::Footprint& f) const override {
    const auto& u = *unit.as<discovery::DwcUnit>();
    f.config(&u.root_port, u.vsec_offset, u.vsec_length);
  }
  ojson detail_json(const discovery::PmuUnit& unit) const override {
    const auto& u = *unit.as<discovery::DwcUnit>();
    ojson regs = ojson::array();
    for (const auto& r : u.registers) regs.push_back({{"name", r.name}, {"offset", hex(r.offset)}});
    return ojson{{"root_port", u.root_port.str()},
                 {"vendor", hex(u.vendor, 4)},
                 {"vendor_name", u.vendor_name},
                 {"device", hex(u.device, 4)},
                 {"sbdf", hex(u.sbdf)},
                 {"vsec_offset", hex(u.vsec_offset)},
                 {"vsec_length", hex(u.vsec_length)},
                 {"vsec_rev", u.vsec_rev},
                 {"lanes", u.lanes ? ojson(u.lanes) : ojson(nullptr)},
                 {"registers", regs},
                 {"event_groups", u.event_groups}};
  }
  pmu::UnitLayout layout(const discovery::PmuUnit& unit, const platform::Database&) const override {
    return pmu::designware_layout(unit);
  }
  std::unique_ptr<pmu::UnitDriver> driver(const pmu::UnitLayout& layout, const platform::Database&) const override {
    return pmu::make_dwc_rasdes(layout);
  }
  std::unique_ptr<sim::UnitModel> model(const pmu::UnitLayout& layout, const sim::Rates& rates) const override {
    return sim::make_dwc_model(layout, rates);
  }
};

}  // namespace

const discovery::Family& designware_family() {
  static const DesignWare family;
  return family;
}

}  // namespace pmukit::families

const pmukit::discovery::Family& pmukit::discovery::DwcUnit::family() {
  return families::designware_family();
}
