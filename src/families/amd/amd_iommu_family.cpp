// pmukit -- the AMD IOMMU family: what the core layers reach through its units.
#include "pmukit/families/amd/amd_iommu_family.h"

#include "amd_iommu_driver.h"
#include "amd_iommu_model.h"
#include "amd_iommu_spec.h"
#include "amd_iommu_text.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/amd/amd_iommu_discovery.h"
#include "pmukit/families/amd/amd_iommu_layout.h"
#include "pmukit/families/amd/amd_iommu_regs.h"
#include "pmukit/families/amd/amd_iommu_unit.h"
#include "pmukit/pmu/family_driver.h"
#include "pmukit/snapshot/spec_context.h"

namespace pmukit::families {

namespace {

using ojson = nlohmann::ordered_json;
using discovery::AmdIommuUnit;
namespace r = regs::amd_iommu;

constexpr snapshot::spec::Section kSpecSections[] = {{"amd_iommus", 45, snapshot::spec::write_amd_iommus}};

class AmdIommu final : public discovery::Family,
                       public pmu::FamilyDriver,
                       public sim::FamilyModel,
                       public snapshot::FamilySpec {
 public:
  std::string_view name() const override { return "amd-iommu"; }
  std::string text_section(const discovery::Inventory& inventory, bool verbose) const override {
    return amd_iommu_text_section(inventory, verbose);
  }
  void discover(const discovery::MachineFacts& f, discovery::Inventory& inventory) const override {
    discovery::discover_amd_iommus(f.machine, f.devices, f.topology, inventory);
  }
  // The capability in config space, and the counter banks when they are programmed.
  void footprint(const discovery::PmuUnit& unit, discovery::Footprint& f) const override {
    const auto& u = *unit.as<AmdIommuUnit>();
    f.config(&u.function, u.cap_offset, r::kCapSpan);
    if (u.usable()) f.mmio(u.mmio_base + r::kCounterBase, u.banks * r::kBankStride);
  }
  std::string origin(const discovery::PmuUnit& unit) const override {
    return "IOMMU " + unit.as<AmdIommuUnit>()->function.str();
  }
  ojson detail_json(const discovery::PmuUnit& unit) const override {
    const auto& u = *unit.as<AmdIommuUnit>();
    ojson regs = ojson::object();
    for (const auto& reg : r::kCounterRegisters) regs[std::string(reg.name)] = hex(reg.offset);
    return ojson{{"function", u.function.str()},
                 {"vendor", hex(u.vendor, 4)},
                 {"device", hex(u.device, 4)},
                 {"cap_offset", hex(u.cap_offset)},
                 {"cap_header", hex(u.cap_header, 8)},
                 {"base_enabled", u.base_enabled},
                 {"mmio_base", u.base_enabled ? ojson(hex(u.mmio_base)) : ojson(nullptr)},
                 {"region_proven", u.region_proven},
                 {"region_source", u.region_source},
                 {"ext_features", discovery::opt_hex(u.ext_features)},
                 {"pc_supported", u.pc_supported},
                 {"cntr_conf", discovery::opt_hex(u.cntr_conf)},
                 {"banks", u.banks},
                 {"counters_per_bank", u.counters},
                 {"counter_base", u.usable() ? ojson(hex(u.mmio_base + r::kCounterBase)) : ojson(nullptr)},
                 {"counter_registers", regs}};
  }
  pmu::UnitLayout layout(const discovery::PmuUnit& unit, const platform::Database&) const override {
    return pmu::amd_iommu_layout(unit);
  }
  std::unique_ptr<pmu::UnitDriver> driver(const pmu::UnitLayout& layout, const platform::Database&) const override {
    return pmu::make_amd_iommu(layout);
  }
  std::unique_ptr<sim::UnitModel> model(const pmu::UnitLayout& layout, const sim::Rates& rates) const override {
    return sim::make_amd_iommu_model(layout, rates);
  }
  std::span<const snapshot::spec::Section> spec_sections() const override { return kSpecSections; }
};

}  // namespace

const discovery::Family& amd_iommu_family() {
  static const AmdIommu family;
  return family;
}

}  // namespace pmukit::families

const pmukit::discovery::Family& pmukit::discovery::AmdIommuUnit::family() {
  return families::amd_iommu_family();
}
