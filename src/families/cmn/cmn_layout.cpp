// pmukit -- an Arm CMN mesh's counting registers: per DTC domain DTC_CTL, PMCR, the eight global
// counters and the cycle counter; per DTM its PMU_CONFIG and local counters; per node with events
// its event select(s). Linux arm-cmn.c programs the same ones (arm_cmn_init_dtc(),
// arm_cmn_init_dtm(), arm_cmn_event_add(), arm_cmn_set_event_sel_lo()); offsets are cmn_regs.h's.
//
// Every one of them lies in a node block the walk read (a DTC node, an XP, a device node), so
// nothing outside the discovered DTM/DTC and event-select registers is ever owned, hence written;
// the blocks mapped are those nodes' PMU pages (and a DTC's first page, for DTC_CTL), not the
// whole configuration region.
#include "pmukit/families/cmn/cmn_layout.h"

#include "pmukit/families/cmn/cmn_regs.h"
#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/platform/database.h"

namespace pmukit::pmu {

namespace {

using Role = CmnRole;

constexpr std::uint64_t kPage = 0x1000;  // a node's PMU registers fill one 4 KiB page

constexpr std::string_view kRoleNames[] = {
    "DTC_CTL", "PMU control", "cycle counter", "counter", "por_dtm_pmu_config", "por_dtm_pmevcnt", "pmu_event_sel"};
static_assert(std::size(kRoleNames) == static_cast<std::size_t>(CmnRole::EventSelect) + 1);

void add(UnitLayout& l, Role role, unsigned index, Reg reg, unsigned instance = 0) {
  l.add(role, index, reg, true, instance);
}

// Nodes whose events a DTM counts through their event select: every type the kernel counts but
// the DTC (its one event is the cycle counter) and the CFG node.
bool counts_events(const discovery::CmnNode& n, const platform::CmnData* data) {
  if (n.type == regs::cmn::kTypeDtc || n.type == regs::cmn::kTypeCfg) return false;
  const auto* t = data ? data->node_type(n.type) : nullptr;
  return t && t->events;
}

}  // namespace

UnitLayout cmn_layout(const discovery::PmuUnit& unit, const platform::Database& db) {
  namespace cmn = regs::cmn;
  const auto& u = *unit.as<discovery::CmnUnit>();
  UnitLayout l;
  l.role_names = kRoleNames;
  if (!u.walked || u.dtcs.empty()) return l;
  const auto& soc = db.soc(platform::SocSection::Cmn);
  const auto* data = soc.cmn ? &*soc.cmn : nullptr;
  for (const auto& d : u.dtcs) {
    const std::uint64_t base = u.phys(d.offset);
    l.blocks.push_back({base, cmn::kPmuPage + kPage});  // DTC_CTL in the first page, PMCR in the PMU page
    add(l, Role::DtcControl, d.domain, mmio32(base + cmn::DtcCtl::offset));
    add(l, Role::PmuControl, d.domain, mmio32(base + cmn::DtcPmcr::offset));
    add(l, Role::CycleCounter, d.domain, mmio64(base + cmn::kDtcPmccntr, true));
    for (unsigned n = 0; n < cmn::kDtcCounters; ++n)
      add(l, Role::Counter, n, mmio32(base + cmn::dtc_pmevcnt(n)), d.domain);
  }
  for (std::size_t i = 0; i < u.dtms.size(); ++i) {
    const std::uint64_t base = u.phys(u.dtms[i].offset);
    if (u.dtms[i].index == 0) l.blocks.push_back({base, kPage});  // the XP's PMU page: its DTMs, its event select
    add(l, Role::DtmConfig, static_cast<unsigned>(i), mmio64(base + cmn::DtmPmuConfig::offset, true));
    add(l, Role::DtmCounter, static_cast<unsigned>(i), mmio64(base + cmn::kDtmPmevcnt, true));
  }
  // CMN-700 XPs select 16-bit event ids (the kernel's wide_sel): a 64-bit register.
  const bool wide_xp = u.part_name == "CMN-700";
  for (std::size_t i = 0; i < u.nodes.size(); ++i) {
    const auto& n = u.nodes[i];
    if (!counts_events(n, data)) continue;
    const unsigned parts = cmn::has_second_part(n.type) ? 2 : 1;
    if (!n.is_xp()) l.blocks.push_back({u.phys(n.offset + cmn::kPmuPage), kPage});
    for (unsigned p = 0; p < parts; ++p) {
      const std::uint64_t at = u.phys(n.offset + cmn::event_sel_offset(n.type, p));
      add(l, Role::EventSelect, static_cast<unsigned>(i), n.is_xp() && wide_xp ? mmio64(at, true) : mmio32(at), p);
    }
  }
  return l;
}

}  // namespace pmukit::pmu
