// pmukit -- building a unit's layout from its discovered addresses and its family's register map.
#include "pmukit/pmu/unit_layout.h"

#include <algorithm>

#include <fmt/format.h>

#include "drivers.h"
#include "pmukit/platform/database.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/designware/designware_regs.h"
#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/families/tegra410/tegra410_regs.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

using discovery::RegAccess;

void add(UnitLayout& l, Role role, unsigned index, Reg reg, bool owned = true, unsigned instance = 0) {
  l.registers.push_back({role, static_cast<std::uint16_t>(index), static_cast<std::uint16_t>(instance), reg, owned});
}

// Intel PMON box (Linux uncore_discovery.c uncore_update_uncore_type): a box control, counter
// controls and counters in the box's address space; widths by access type (regs::intel::widths).
UnitLayout intel_layout(const discovery::PmuUnit& unit) {
  const auto& u = *unit.as<discovery::IntelUnit>();
  const auto access = u.access == RegAccess::Msr    ? regs::intel::AccessType::Msr
                      : u.access == RegAccess::Mmio ? regs::intel::AccessType::Mmio
                                                    : regs::intel::AccessType::Pci;
  const auto w = regs::intel::widths(access);
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
  add(l, Role::BoxControl, 0, reg(u.box_ctl, w.box_ctl));
  for (std::size_t i = 0; i < u.ctl.size(); ++i) {
    add(l, Role::CounterControl, static_cast<unsigned>(i), reg(u.ctl[i], w.ctl));
    add(l, Role::Counter, static_cast<unsigned>(i), reg(u.ctr[i], w.ctr));
  }
  if (u.fixed_ctl && u.fixed_ctr) {
    add(l, Role::FixedControl, 0, reg(*u.fixed_ctl, w.fixed_ctl));
    add(l, Role::FixedCounter, 0, reg(*u.fixed_ctr, w.ctr));
  }
  if (u.filter) add(l, Role::Filter, 0, reg(*u.filter, w.filter));
  if (u.access == RegAccess::Mmio) {
    std::uint64_t end = u.box_ctl;
    for (const auto& r : l.registers) end = std::max(end, std::get<MmioAddress>(r.reg.at).phys + r.reg.width / 8u);
    l.blocks.push_back({u.box_ctl, end - u.box_ctl});
  }
  return l;
}

// CoreSight PMU (Linux arm_cspmu.c): with a cycle counter, the last logical counter is physical
// counter 31 (arm_cspmu_init_mmio); SET/CLR/OVS banks cover 32 counters each.
UnitLayout coresight_layout(const discovery::PmuUnit& unit, const platform::Database& db) {
  namespace cs = regs::coresight;
  const auto& u = *unit.as<discovery::CoreSightUnit>();
  auto p0 = [&](std::uint32_t off) { return mmio32(u.base0 + off); };
  auto p1 = [&](std::uint32_t off) { return mmio32(u.base1 + off); };
  auto counter = [&](unsigned n) {
    if (unit.counter_width <= 32) return mmio32(u.base1 + cs::PMEVCNTR + 4u * n);
    return mmio64(u.base1 + cs::PMEVCNTR + 8u * n, u.atomic64);
  };
  UnitLayout l;
  add(l, Role::PmuControl, 0, p0(cs::PMCR));
  const unsigned general = unit.num_counters - (u.has_cycle_counter && unit.num_counters ? 1 : 0);
  unsigned top = 0;
  for (unsigned n = 0, made = 0; made < general; ++n) {
    if (n == cs::kCycleCounter) continue;
    add(l, Role::EventType, n, p0(cs::PMEVTYPER + 4 * n));
    add(l, Role::EventFilter, n, p0(cs::PMEVFILTR + 4 * n));
    add(l, Role::EventFilter2, n, p0(cs::PMEVFILT2R + 4 * n));
    add(l, Role::Counter, n, counter(n));
    top = n, ++made;
  }
  if (u.has_cycle_counter) {
    add(l, Role::CycleFilter, 0, p0(cs::PMCCFILTR));
    add(l, Role::CycleCounter, cs::kCycleCounter, counter(cs::kCycleCounter));
    top = std::max(top, cs::kCycleCounter);
  }
  for (unsigned b = 0; b <= top / cs::kCountersPerBank; ++b) {
    add(l, Role::EnableSet, b, p0(cs::PMCNTENSET + 4 * b));
    add(l, Role::EnableClear, b, p0(cs::PMCNTENCLR + 4 * b));
    add(l, Role::OverflowClear, b, p1(cs::PMOVSCLR + 4 * b));
  }
  const auto* kind = db.pmu_kind(unit.pmu_kind);
  if (kind && kind->coresight)
    for (std::size_t i = 0; i < kind->coresight->aux.size(); ++i)
      add(l, Role::AuxFilter, static_cast<unsigned>(i), p0(kind->coresight->aux[i].offset));
  l.blocks.push_back({u.base0, cs::kPageBytes});
  if (u.base1 != u.base0) l.blocks.push_back({u.base1, cs::kPageBytes});
  return l;
}

// DesignWare RAS DES (Linux dwc_pcie_pmu.c): two controls and two counters in config space.
UnitLayout dwc_layout(const discovery::PmuUnit& unit) {
  namespace dwc = regs::dwc;
  const auto& u = *unit.as<discovery::DwcUnit>();
  UnitLayout l;
  add(l, Role::LaneControl, 0, config32(u.root_port, u.vsec_offset + dwc::EVENT_CNT_CTL));
  l.registers.back().command = true;  // each write selects, enables, disables or clears one lane event
  add(l, Role::LaneCounter, 0, config32(u.root_port, u.vsec_offset + dwc::EVENT_CNT_DATA));
  add(l, Role::TimeControl, 0, config32(u.root_port, u.vsec_offset + dwc::TIME_BASED_ANAL_CTL));
  add(l, Role::TimeCounter, 0, config64(u.root_port, u.vsec_offset + dwc::TIME_BASED_ANAL_DATA_LOW));
  return l;
}

// Tegra410 blocks outside CoreSight: controls in the broadcast region (the only registers
// written), counters in each instance's region (only read: they are not writable).
UnitLayout t410_layout(const discovery::PmuUnit& unit) {
  namespace t410 = regs::t410;
  const auto& u = *unit.as<discovery::T410Unit>();
  UnitLayout l;
  if (!u.broadcast_base || u.instance_bases.empty() || u.region_size == 0) return l;
  const std::uint64_t bcast = *u.broadcast_base;
  if (unit.family == discovery::Family::T410CmemLatency) {
    add(l, Role::ClockControl, 0, mmio64(bcast + t410::CMEM_CG_CTRL, true));
    add(l, Role::PmuControl, 0, mmio64(bcast + t410::CMEM_CTRL, true));
    for (unsigned i = 0; i < u.instance_bases.size(); ++i) {
      const std::uint64_t base = u.instance_bases[i];
      add(l, Role::CycleCounter, 0, mmio64(base + t410::CMEM_CYCLE_CNTR, true), false, i);
      for (unsigned mc = 0; mc < std::size(t410::kCmemReq); ++mc) {
        add(l, Role::RequestCounter, mc, mmio64(base + t410::kCmemReq[mc], true), false, i);
        add(l, Role::OutstandingCounter, mc, mmio64(base + t410::kCmemAor[mc], true), false, i);
      }
    }
  } else {
    add(l, Role::PmuControl, 0, mmio32(bcast + t410::C2C_CTRL));
    for (unsigned i = 0; i < u.instance_bases.size(); ++i)
      for (unsigned ev = 0; ev < std::size(t410::kC2cCounters); ++ev)
        add(l, Role::Counter, ev, mmio64(u.instance_bases[i] + t410::kC2cCounters[ev], false), false, i);
  }
  for (auto base : u.instance_bases) l.blocks.push_back({base, u.region_size});
  l.blocks.push_back({bcast, u.region_size});
  return l;
}

}  // namespace

std::string_view role_name(Role role) {
  constexpr std::string_view names[] = {"box control",
                                        "counter control",
                                        "counter",
                                        "fixed counter control",
                                        "fixed counter",
                                        "filter",
                                        "PMU control",
                                        "PMEVTYPER",
                                        "PMEVFILTR",
                                        "PMEVFILT2R",
                                        "PMCCFILTR",
                                        "cycle counter",
                                        "PMCNTENSET",
                                        "PMCNTENCLR",
                                        "PMOVSCLR",
                                        "auxiliary filter",
                                        "EVENT_CNT_CTL",
                                        "EVENT_CNT_DATA",
                                        "TIME_BASED_ANAL_CTL",
                                        "TIME_BASED_ANAL_DATA",
                                        "clock gate control",
                                        "request counter",
                                        "outstanding-request counter",
                                        "por_dtm_pmu_config",
                                        "por_dtm_pmevcnt",
                                        "pmu_event_sel",
                                        "DTC_CTL"};
  static_assert(std::size(names) == static_cast<std::size_t>(Role::DtcControl) + 1);
  return names[static_cast<std::size_t>(role)];
}

const UnitRegister* UnitLayout::find(Role role, unsigned index, unsigned instance) const {
  for (const auto& r : registers)
    if (r.role == role && r.index == index && r.instance == instance) return &r;
  return nullptr;
}

const Reg& UnitLayout::at(Role role, unsigned index, unsigned instance) const {
  if (const auto* r = find(role, index, instance)) return r->reg;
  throw Error(fmt::format("{}: no {} {} (instance {}) in its register layout", unit ? unit->name : "unit",
                          role_name(role), index, instance));
}

std::size_t UnitLayout::count(Role role) const {
  return static_cast<std::size_t>(
      std::count_if(registers.begin(), registers.end(), [&](const UnitRegister& r) { return r.role == role; }));
}

std::vector<unsigned> UnitLayout::indices(Role role) const {
  std::vector<unsigned> out;
  for (const auto& r : registers)
    if (r.role == role && r.instance == 0) out.push_back(r.index);
  return out;
}

std::vector<Reg> UnitLayout::owned() const {
  std::vector<Reg> out;
  for (const auto& r : registers)
    if (r.owned) out.push_back(r.reg);
  return out;
}

std::vector<Reg> UnitLayout::commands() const {
  std::vector<Reg> out;
  for (const auto& r : registers)
    if (r.command) out.push_back(r.reg);
  return out;
}

UnitLayout make_layout(const discovery::PmuUnit& unit, const platform::Database& db) {
  UnitLayout l;
  switch (unit.family) {
  case discovery::Family::IntelUncore:
    l = intel_layout(unit);
    break;
  case discovery::Family::CoreSight:
    l = coresight_layout(unit, db);
    break;
  case discovery::Family::DwcRasDes:
    l = dwc_layout(unit);
    break;
  case discovery::Family::T410C2c:
  case discovery::Family::T410CmemLatency:
    l = t410_layout(unit);
    break;
  case discovery::Family::Cmn:
    l = cmn_layout(unit, db);
    break;
  }
  l.unit = &unit;
  return l;
}

}  // namespace pmukit::pmu
