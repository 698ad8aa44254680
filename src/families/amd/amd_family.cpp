// pmukit -- the AMD family: what the core layers reach through its units.
#include "pmukit/families/amd/amd_family.h"

#include <fmt/format.h>

#include "amd_driver.h"
#include "amd_model.h"
#include "amd_spec.h"
#include "amd_text.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/amd/amd_discovery.h"
#include "pmukit/families/amd/amd_layout.h"
#include "pmukit/families/amd/amd_unit.h"
#include "pmukit/pmu/family_driver.h"
#include "pmukit/util/file.h"

namespace pmukit::families {

namespace {

using ojson = nlohmann::ordered_json;
using discovery::AmdUnit;

constexpr snapshot::spec::Section kSpecSections[] = {{"amd_uncore", 30, snapshot::spec::write_amd_uncore}};

class Amd final : public discovery::Family,
                  public pmu::FamilyDriver,
                  public sim::FamilyModel,
                  public snapshot::FamilySpec {
 public:
  std::string_view name() const override { return "amd"; }
  void discover(const discovery::MachineFacts& f, discovery::Inventory& inventory) const override {
    discovery::discover_amd_uncore(f, inventory);
  }
  // Every control and count MSR, on the CPU that reaches the unit.
  void footprint(const discovery::PmuUnit& unit, discovery::Footprint& f) const override {
    const auto& u = *unit.as<AmdUnit>();
    if (u.cpu >= 0 && u.msr_base) f.msr(u.cpu, u.msr_base, 2ull * unit.num_counters);
  }
  ojson detail_json(const discovery::PmuUnit& unit) const override {
    const auto& u = *unit.as<AmdUnit>();
    static constexpr const char* kKinds[] = {"l3", "df", "umc"};
    return ojson{{"kind", kKinds[static_cast<int>(u.kind)]},
                 {"generation", u.generation},
                 {"cpu_family", hex(u.cpu_family)},
                 {"cpu", u.cpu},
                 {"cpus", format_cpu_list(u.cpus)},
                 {"l3_id", u.l3_id >= 0 ? ojson(u.l3_id) : ojson(nullptr)},
                 {"umc_channel", u.umc_channel >= 0 ? ojson(u.umc_channel) : ojson(nullptr)},
                 {"msr_base", hex(u.msr_base)},
                 {"perfmon_v2", u.perfmon_v2},
                 {"counters_from", u.counters_from}};
  }
  std::string origin(const discovery::PmuUnit& unit) const override {
    const auto& u = *unit.as<AmdUnit>();
    return u.kind == AmdUnit::Kind::L3 ? fmt::format("L3 {} of CPUs {}", u.l3_id, format_cpu_list(u.cpus)) : "";
  }
  std::string text_section(const discovery::Inventory& inventory, bool verbose) const override {
    return amd_text_section(inventory, verbose);
  }
  pmu::UnitLayout layout(const discovery::PmuUnit& unit, const platform::Database&) const override {
    return pmu::amd_layout(unit);
  }
  std::unique_ptr<pmu::UnitDriver> driver(const pmu::UnitLayout& layout, const platform::Database&) const override {
    return pmu::make_amd_driver(layout);
  }
  std::unique_ptr<sim::UnitModel> model(const pmu::UnitLayout& layout, const sim::Rates& rates) const override {
    return sim::make_amd_model(layout, rates);
  }
  std::span<const snapshot::spec::Section> spec_sections() const override { return kSpecSections; }
};

}  // namespace

const discovery::Family& amd_family() {
  static const Amd family;
  return family;
}

}  // namespace pmukit::families

const pmukit::discovery::Family& pmukit::discovery::AmdUnit::family() {
  return families::amd_family();
}
