// pmukit -- the CoreSight family: what the core layers reach through its units.
#include "pmukit/families/coresight/coresight_family.h"

#include <fmt/format.h>

#include "coresight_driver.h"
#include "coresight_model.h"
#include "coresight_spec.h"
#include "coresight_text.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/coresight/coresight_discovery.h"
#include "pmukit/families/coresight/coresight_layout.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/coresight/coresight_unit.h"
#include "pmukit/families/coresight/nvidia_rcmap.h"
#include "pmukit/pmu/family_driver.h"

namespace pmukit::families {

namespace {

using ojson = nlohmann::ordered_json;

// Before acpi_devices: APMT nodes with an ACPI device take their instance numbers first.
constexpr snapshot::spec::Section kSpecSections[] = {{"apmt", 80, snapshot::spec::write_apmt}};

class CoreSight final : public discovery::Family,
                        public pmu::FamilyDriver,
                        public sim::FamilyModel,
                        public snapshot::FamilySpec {
 public:
  std::string_view name() const override { return "coresight"; }
  std::string text_section(const discovery::Inventory& inventory, bool verbose) const override {
    return coresight_text_section(inventory, verbose);
  }
  void discover(const discovery::MachineFacts& f, discovery::Inventory& inventory) const override {
    discovery::discover_coresight(f.machine, f.topology, f.acpi_devices, inventory);
  }
  // Which NVIDIA PCIe PMU and root-port filter bit each root port maps to.
  void finish(const discovery::MachineFacts& f, discovery::Inventory& inventory) const override {
    inventory.root_ports = discovery::map_root_ports(f.machine, f.devices, inventory.warnings);
  }
  // Its page 0 and (dual-page) page 1, whole (Arm IHI 0091: 4 KB frames).
  void footprint(const discovery::PmuUnit& unit, discovery::Footprint& f) const override {
    const auto& u = *unit.as<discovery::CoreSightUnit>();
    f.mmio(u.base0, regs::coresight::kPageBytes);
    if (u.base1 != u.base0) f.mmio(u.base1, regs::coresight::kPageBytes);
  }
  std::string origin(const discovery::PmuUnit& unit) const override {
    return fmt::format("APMT node {}", unit.as<discovery::CoreSightUnit>()->apmt_id);
  }
  ojson detail_json(const discovery::PmuUnit& unit) const override {
    const auto& u = *unit.as<discovery::CoreSightUnit>();
    ojson pmpidr = ojson::array();
    const auto& id = u.pmpidr;
    for (auto v : {id.p0.raw, id.p1.raw, id.p2.raw, id.p3.raw, id.p4.raw}) pmpidr.push_back(hex(v));
    return ojson{{"base0", hex(u.base0)},
                 {"base1", hex(u.base1)},
                 {"dual_page", u.dual_page},
                 {"atomic64", u.atomic64},
                 {"pmcfgr", hex(u.pmcfgr.raw)},
                 {"pmcr", hex(u.pmcr.raw)},
                 {"pmiidr", hex(u.pmiidr.raw)},
                 {"pmiidr_source", u.pmiidr_source},
                 {"pmiidr_register", hex(u.pmiidr_register.raw)},
                 {"pmpidr", pmpidr},
                 {"implementer", u.implementer},
                 {"product", u.product},
                 {"kernel_module", u.kernel_module},
                 {"cycle_counter", u.has_cycle_counter ? ojson(u.cycle_counter_index) : ojson(nullptr)},
                 {"rc", u.rc >= 0 ? ojson(u.rc) : ojson(nullptr)},
                 {"rc_source", u.rc_source.empty() ? ojson(nullptr) : ojson(u.rc_source)},
                 {"cpus", u.cpus},
                 {"numa_node", u.numa_node >= 0 ? ojson(u.numa_node) : ojson(nullptr)},
                 {"platform_device", u.platform_device},
                 {"acpi_device", u.acpi_device.empty() ? ojson(nullptr) : ojson(u.acpi_device)},
                 {"kernel_pmu", u.kernel_pmu.empty() ? ojson(nullptr) : ojson(u.kernel_pmu)},
                 {"mapped_through", u.mapped_through},
                 {"apmt",
                  {{"id", u.apmt_id},
                   {"type", u.apmt_type},
                   {"flags", u.apmt_flags},
                   {"inst_primary", hex(u.apmt_inst_primary)},
                   {"inst_secondary", u.apmt_inst_secondary},
                   {"proc_affinity", u.apmt_proc_affinity},
                   {"impl_id", hex(u.apmt_impl_id)}}}};
  }
  pmu::UnitLayout layout(const discovery::PmuUnit& unit, const platform::Database& db) const override {
    return pmu::coresight_layout(unit, db);
  }
  // Counters read as zero above PMCFGR.SIZE; enable and overflow bits of counters the block does
  // not implement are RAZ/WI (Arm IHI 0091).
  std::string implausible_original(const pmu::UnitLayout& layout, const pmu::UnitRegister& r,
                                   std::uint64_t value) const override {
    using pmu::CoreSightRole;
    if (r.is(CoreSightRole::Counter)) return pmu::above_counter_width(*layout.unit, value);
    if (!r.is(CoreSightRole::EnableSet) && !r.is(CoreSightRole::EnableClear) && !r.is(CoreSightRole::OverflowClear))
      return "";
    for (unsigned bit = 0; bit < 32; ++bit) {
      const unsigned n = 32 * r.index + bit;
      if (value >> bit & 1 && !layout.find(CoreSightRole::Counter, n) && !layout.find(CoreSightRole::CycleCounter, n))
        return fmt::format("{} bank {} of a block without counter {}", layout.role_name(r.role), r.index, n);
    }
    return "";
  }
  std::unique_ptr<pmu::UnitDriver> driver(const pmu::UnitLayout& layout, const platform::Database& db) const override {
    return pmu::make_coresight(layout, db);
  }
  std::unique_ptr<sim::UnitModel> model(const pmu::UnitLayout& layout, const sim::Rates& rates) const override {
    return sim::make_coresight_model(layout, rates);
  }
  std::span<const snapshot::spec::Section> spec_sections() const override { return kSpecSections; }
};

}  // namespace

const discovery::Family& coresight_family() {
  static const CoreSight family;
  return family;
}

}  // namespace pmukit::families

const pmukit::discovery::Family& pmukit::discovery::CoreSightUnit::family() {
  return families::coresight_family();
}
