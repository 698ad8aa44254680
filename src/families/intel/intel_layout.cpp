// pmukit -- an Intel PMON box's layout; register widths by access type (regs::intel::widths).
#include "pmukit/families/intel/intel_layout.h"

#include <algorithm>

#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/families/intel/intel_unit.h"

namespace pmukit::pmu {

namespace {

using discovery::RegAccess;
using Role = IntelRole;

constexpr std::string_view kRoleNames[] = {"box control",           "counter control", "counter",
                                           "fixed counter control", "fixed counter",   "filter"};
static_assert(std::size(kRoleNames) == static_cast<std::size_t>(IntelRole::Filter) + 1);

}  // namespace

UnitLayout intel_layout(const discovery::PmuUnit& unit) {
  const auto& u = *unit.as<discovery::IntelUnit>();
  const auto w = discovery::unit_widths(u);
  auto reg = [&](std::uint64_t addr, unsigned width) -> Reg {
    switch (u.access) {
    case RegAccess::Msr:
      return msr(u.msr_cpu, static_cast<std::uint32_t>(addr));
    case RegAccess::Mmio:
      return width == 64 ? mmio64(addr, true) : mmio32(addr);
    case RegAccess::PciConfig:
      break;
    }
    auto off = static_cast<std::uint32_t>(addr);
    return width == 64 ? config64(*u.pci_device, off) : config32(*u.pci_device, off);
  };
  UnitLayout l;
  l.role_names = kRoleNames;
  l.add(Role::BoxControl, 0, reg(u.box_ctl, w.box_ctl));
  for (std::size_t i = 0; i < u.ctl.size(); ++i) {
    l.add(Role::CounterControl, static_cast<unsigned>(i), reg(u.ctl[i], w.ctl));
    l.add(Role::Counter, static_cast<unsigned>(i), reg(u.ctr[i], w.ctr));
  }
  if (u.fixed_ctl && u.fixed_ctr) {
    l.add(Role::FixedControl, 0, reg(*u.fixed_ctl, w.fixed_ctl));
    l.add(Role::FixedCounter, 0, reg(*u.fixed_ctr, w.ctr));
  }
  if (u.filter) l.add(Role::Filter, 0, reg(*u.filter, w.filter));
  if (u.filter_high) l.add(Role::Filter, 1, reg(*u.filter_high, w.filter));
  if (u.access == RegAccess::Mmio) {
    std::uint64_t end = u.box_ctl;
    for (const auto& r : l.registers) end = std::max(end, std::get<MmioAddress>(r.reg.at).phys + r.reg.width / 8u);
    l.blocks.push_back({u.box_ctl, end - u.box_ctl});
  }
  return l;
}

}  // namespace pmukit::pmu
