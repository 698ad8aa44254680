// pmukit -- a Tegra410 block's layout: controls in the broadcast region (the only registers
// written), counters in each instance's region (only read: they are not writable).
#include "pmukit/families/tegra410/tegra410_layout.h"

#include "pmukit/families/tegra410/tegra410_regs.h"
#include "pmukit/families/tegra410/tegra410_unit.h"

namespace pmukit::pmu {

namespace {

constexpr std::string_view kRoleNames[] = {"PMU control",   "counter",         "clock gate control",
                                           "cycle counter", "request counter", "outstanding-request counter"};
static_assert(std::size(kRoleNames) == static_cast<std::size_t>(T410Role::OutstandingCounter) + 1);

}  // namespace

UnitLayout tegra410_layout(const discovery::PmuUnit& unit) {
  namespace t410 = regs::t410;
  using Role = T410Role;
  const auto& u = *unit.as<discovery::T410Unit>();
  UnitLayout l;
  l.role_names = kRoleNames;
  if (!u.broadcast_base || u.instance_bases.empty() || u.region_size == 0) return l;
  const std::uint64_t bcast = *u.broadcast_base;
  if (u.kind == discovery::T410Unit::Kind::CmemLatency) {
    l.add(Role::ClockControl, 0, mmio64(bcast + t410::CmemCgCtrl::offset, true));
    l.add(Role::PmuControl, 0, mmio64(bcast + t410::CmemCtrl::offset, true));
    for (unsigned i = 0; i < u.instance_bases.size(); ++i) {
      const std::uint64_t base = u.instance_bases[i];
      l.add(Role::CycleCounter, 0, mmio64(base + t410::CmemCycleCntr::offset, true), false, i);
      for (unsigned mc = 0; mc < std::size(t410::kCmemReq); ++mc) {
        l.add(Role::RequestCounter, mc, mmio64(base + t410::kCmemReq[mc], true), false, i);
        l.add(Role::OutstandingCounter, mc, mmio64(base + t410::kCmemAor[mc], true), false, i);
      }
    }
  } else {
    l.add(Role::PmuControl, 0, mmio32(bcast + t410::C2cCtrl::offset));
    for (unsigned i = 0; i < u.instance_bases.size(); ++i)
      for (unsigned ev = 0; ev < std::size(t410::kC2cCounters); ++ev)
        l.add(Role::Counter, ev, mmio64(u.instance_bases[i] + t410::kC2cCounters[ev], false), false, i);
  }
  for (auto base : u.instance_bases) l.blocks.push_back({base, u.region_size});
  l.blocks.push_back({bcast, u.region_size});
  return l;
}

}  // namespace pmukit::pmu
