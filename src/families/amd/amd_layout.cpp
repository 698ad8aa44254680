// pmukit -- an AMD uncore unit's layout: counter i's control at msr_base + 2i and its count at
// msr_base + 2i + 1 (amd_uncore_add), both MSRs of the CPU that reaches the unit, both saved.
#include "pmukit/families/amd/amd_layout.h"

#include "pmukit/families/amd/amd_unit.h"

namespace pmukit::pmu {

namespace {

constexpr std::string_view kRoleNames[] = {"PERF_CTL", "PERF_CTR"};
static_assert(std::size(kRoleNames) == static_cast<std::size_t>(AmdRole::Counter) + 1);

}  // namespace

UnitLayout amd_layout(const discovery::PmuUnit& unit) {
  const auto& u = *unit.as<discovery::AmdUnit>();
  UnitLayout l;
  l.unit = &unit;
  l.role_names = kRoleNames;
  if (u.cpu < 0 || u.msr_base == 0) return l;
  for (unsigned i = 0; i < unit.num_counters; ++i) {
    l.add(AmdRole::Control, i, msr(u.cpu, u.msr_base + 2 * i));
    l.add(AmdRole::Counter, i, msr(u.cpu, u.msr_base + 2 * i + 1));
  }
  return l;
}

}  // namespace pmukit::pmu
