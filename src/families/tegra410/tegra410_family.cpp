// pmukit -- the Tegra410 family: what the core layers reach through its units.
#include "pmukit/families/tegra410/tegra410_family.h"

#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/tegra410/tegra410_discovery.h"
#include "pmukit/families/tegra410/tegra410_layout.h"
#include "pmukit/families/tegra410/tegra410_unit.h"
#include "pmukit/pmu/family_driver.h"
#include "tegra410_driver.h"
#include "tegra410_model.h"
#include "tegra410_text.h"

namespace pmukit::families {

namespace {

using ojson = nlohmann::ordered_json;
using discovery::T410Unit;

class Tegra410 final : public discovery::Family, public pmu::FamilyDriver, public sim::FamilyModel {
 public:
  std::string_view name() const override { return "tegra410"; }
  std::string text_section(const discovery::Inventory& inventory, bool verbose) const override {
    return tegra410_text_section(inventory, verbose);
  }
  std::string_view unit_family(const discovery::PmuUnit& unit) const override {
    return unit.as<T410Unit>()->kind == T410Unit::Kind::C2c ? "t410-c2c" : "t410-cmem-latency";
  }
  void discover(const discovery::MachineFacts& f, discovery::Inventory& inventory) const override {
    discovery::discover_t410_blocks(f.machine, f.acpi_devices, inventory);
  }
  // Every instance's region and the broadcast region, when userspace sees them.
  void footprint(const discovery::PmuUnit& unit, discovery::Footprint& f) const override {
    const auto& u = *unit.as<T410Unit>();
    for (auto base : u.instance_bases) f.mmio(base, u.region_size);
    if (u.broadcast_base) f.mmio(*u.broadcast_base, u.region_size);
  }
  ojson detail_json(const discovery::PmuUnit& unit) const override {
    const auto& u = *unit.as<T410Unit>();
    ojson regs = ojson::object();
    for (const auto& [name, off] : u.registers) regs[name] = hex(off);
    return ojson{{"hid", u.hid},
                 {"interface", u.interface},
                 {"acpi_device", u.acpi_device},
                 {"uid", u.uid},
                 {"acpi_path", u.acpi_path},
                 {"instances", discovery::hex_list(u.instance_bases)},
                 {"broadcast", discovery::opt_hex(u.broadcast_base)},
                 {"region_size", u.region_size ? ojson(hex(u.region_size)) : ojson(nullptr)},
                 {"peer", u.peer},
                 {"exposed", u.exposed},
                 {"ranges_listed", u.ranges_listed},
                 {"resources_source", u.resources_source},
                 {"registers", regs}};
  }
  pmu::UnitLayout layout(const discovery::PmuUnit& unit, const platform::Database&) const override {
    return pmu::tegra410_layout(unit);
  }
  std::unique_ptr<pmu::UnitDriver> driver(const pmu::UnitLayout& layout, const platform::Database&) const override {
    return pmu::make_t410_block(layout);
  }
  std::unique_ptr<sim::UnitModel> model(const pmu::UnitLayout& layout, const sim::Rates& rates) const override {
    return sim::make_t410_model(layout, rates);
  }
};

}  // namespace

const discovery::Family& tegra410_family() {
  static const Tegra410 family;
  return family;
}

}  // namespace pmukit::families

const pmukit::discovery::Family& pmukit::discovery::T410Unit::family() {
  return families::tegra410_family();
}
