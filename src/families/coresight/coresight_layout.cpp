// pmukit -- a CoreSight PMU's layout. With a cycle counter, the last logical counter is physical
// counter 31 (Linux arm_cspmu_init_mmio); SET/CLR/OVS banks cover 32 counters each.
#include "pmukit/families/coresight/coresight_layout.h"

#include <algorithm>

#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/coresight/coresight_unit.h"
#include "pmukit/platform/database.h"

namespace pmukit::pmu {

namespace {

constexpr std::string_view kRoleNames[] = {"PMU control", "PMEVTYPER", "PMEVFILTR",       "PMEVFILT2R",
                                           "counter",     "PMCCFILTR", "cycle counter",   "PMCNTENSET",
                                           "PMCNTENCLR",  "PMOVSCLR",  "auxiliary filter"};
static_assert(std::size(kRoleNames) == static_cast<std::size_t>(CoreSightRole::AuxFilter) + 1);

}  // namespace

UnitLayout coresight_layout(const discovery::PmuUnit& unit, const platform::Database& db) {
  namespace cs = regs::coresight;
  using Role = CoreSightRole;
  const auto& u = *unit.as<discovery::CoreSightUnit>();
  auto p0 = [&](std::uint32_t off) { return mmio32(u.base0 + off); };
  auto p1 = [&](std::uint32_t off) { return mmio32(u.base1 + off); };
  auto counter = [&](unsigned n) {
    if (unit.counter_width <= 32) return mmio32(u.base1 + cs::PMEVCNTR + 4u * n);
    return mmio64(u.base1 + cs::PMEVCNTR + 8u * n, u.atomic64);
  };
  UnitLayout l;
  l.role_names = kRoleNames;
  l.add(Role::PmuControl, 0, p0(cs::Pmcr::offset));
  const unsigned general = unit.num_counters - (u.has_cycle_counter && unit.num_counters ? 1 : 0);
  unsigned top = 0;
  for (unsigned n = 0, made = 0; made < general; ++n) {
    if (n == cs::kCycleCounter) continue;
    l.add(Role::EventType, n, p0(cs::PMEVTYPER + 4 * n));
    l.add(Role::EventFilter, n, p0(cs::PMEVFILTR + 4 * n));
    l.add(Role::EventFilter2, n, p0(cs::PMEVFILT2R + 4 * n));
    l.add(Role::Counter, n, counter(n));
    top = n, ++made;
  }
  if (u.has_cycle_counter) {
    l.add(Role::CycleFilter, 0, p0(cs::PMCCFILTR));
    l.add(Role::CycleCounter, cs::kCycleCounter, counter(cs::kCycleCounter));
    top = std::max(top, cs::kCycleCounter);
  }
  for (unsigned b = 0; b <= top / cs::kCountersPerBank; ++b) {
    l.add(Role::EnableSet, b, p0(cs::PMCNTENSET + 4 * b));
    l.add(Role::EnableClear, b, p0(cs::PMCNTENCLR + 4 * b));
    l.add(Role::OverflowClear, b, p1(cs::PMOVSCLR + 4 * b));
  }
  const auto* kind = db.pmu_kind(unit.pmu_kind);
  if (kind && kind->coresight)
    for (std::size_t i = 0; i < kind->coresight->aux.size(); ++i)
      l.add(Role::AuxFilter, static_cast<unsigned>(i), p0(kind->coresight->aux[i].offset));
  l.blocks.push_back({u.base0, cs::kPageBytes});
  if (u.base1 != u.base0) l.blocks.push_back({u.base1, cs::kPageBytes});
  return l;
}

}  // namespace pmukit::pmu
