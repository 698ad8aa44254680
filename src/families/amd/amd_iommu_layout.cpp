// pmukit -- an AMD IOMMU's layout: five registers per counter (iommu.h IOMMU_PC_*_REG), each
// 64-bit without 64-bit access (iommu_pc_get_set_reg: two readl/writel, the low dword written
// first), in the counter-bank region, which is the one MMIO block mapped.
#include "pmukit/families/amd/amd_iommu_layout.h"

#include "pmukit/families/amd/amd_iommu_regs.h"
#include "pmukit/families/amd/amd_iommu_unit.h"

namespace pmukit::pmu {

namespace {

constexpr std::string_view kRoleNames[] = {"COUNTER", "COUNTER_SRC", "PASID_MATCH", "DOMID_MATCH", "DEVID_MATCH"};
static_assert(std::size(kRoleNames) == static_cast<std::size_t>(AmdIommuRole::DevidMatch) + 1);

}  // namespace

UnitLayout amd_iommu_layout(const discovery::PmuUnit& unit) {
  namespace r = regs::amd_iommu;
  using Role = AmdIommuRole;
  const auto& u = *unit.as<discovery::AmdIommuUnit>();
  UnitLayout l;
  l.role_names = kRoleNames;
  if (!u.usable()) return l;
  for (unsigned b = 0; b < u.banks; ++b)
    for (unsigned c = 0; c < u.counters; ++c) {
      const unsigned i = b * u.counters + c;
      auto at = [&](std::uint64_t function) {
        return mmio64(u.mmio_base + r::counter_register(b, c, function), false);
      };
      l.add(Role::Counter, i, at(r::Counter::offset));
      l.add(Role::Source, i, at(r::CounterSrc::offset));
      l.add(Role::PasidMatch, i, at(r::PasidMatch::offset));
      l.add(Role::DomidMatch, i, at(r::DomidMatch::offset));
      l.add(Role::DevidMatch, i, at(r::DevidMatch::offset));
    }
  l.blocks.push_back({u.mmio_base + r::kCounterBase, u.banks * r::kBankStride});
  return l;
}

}  // namespace pmukit::pmu
