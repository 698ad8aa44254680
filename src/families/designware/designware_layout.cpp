// pmukit -- a DesignWare RAS DES unit's layout.
#include "pmukit/families/designware/designware_layout.h"

#include "pmukit/families/designware/designware_regs.h"
#include "pmukit/families/designware/designware_unit.h"

namespace pmukit::pmu {

namespace {

constexpr std::string_view kRoleNames[] = {"EVENT_CNT_CTL", "EVENT_CNT_DATA", "TIME_BASED_ANAL_CTL",
                                           "TIME_BASED_ANAL_DATA"};
static_assert(std::size(kRoleNames) == static_cast<std::size_t>(DwcRole::TimeCounter) + 1);

}  // namespace

UnitLayout designware_layout(const discovery::PmuUnit& unit) {
  namespace dwc = regs::dwc;
  using Role = DwcRole;
  const auto& u = *unit.as<discovery::DwcUnit>();
  UnitLayout l;
  l.role_names = kRoleNames;
  l.add(Role::LaneControl, 0, config32(u.root_port, u.vsec_offset + dwc::EventCntCtl::offset));
  l.registers.back().command = true;  // each write selects, enables, disables or clears one lane event
  l.add(Role::LaneCounter, 0, config32(u.root_port, u.vsec_offset + dwc::EventCntData::offset));
  l.add(Role::TimeControl, 0, config32(u.root_port, u.vsec_offset + dwc::TimeCtl::offset));
  l.add(Role::TimeCounter, 0, config64(u.root_port, u.vsec_offset + dwc::TimeDataLow::offset));
  return l;
}

}  // namespace pmukit::pmu
