// pmukit -- Arm CMN-600/650/700 and CI-700 driver: events counted by the DTM of each node's
// crosspoint, whose 16-bit local counters carry into a DTC global counter, and the DTC cycle
// counter -- the programming of Linux arm-cmn.c (arm_cmn_event_init: which nodes an event counts
// on; arm_cmn_event_add: a free global counter, then a free local counter in each node's DTM,
// PMU_CONFIG with input select, global number and pairing; arm_cmn_init_counter: the global
// counter of every DTC from CMN_COUNTER_INIT; arm_cmn_event_start: the node's event select slot;
// a cycles event: DTC_CTL = DT_EN | CG_DISABLE, then the cycle counter from CMN_CC_INIT, and
// arm_cmn_event_stop: DTC_CTL = DT_EN again -- "perf/arm-cmn: Make cycle counts less surprising":
// clock gating stays off while a DTC's cycle counter is in use, so it counts every cycle, not only
// those the domain was busy; the PMU enabled through DTC 0's PMCR).
//
// Where pmukit differs: PMCR is written without OVFL_INTR_EN (no interrupt handler exists outside
// the kernel), DTC_CTL.DT_EN is set at reset rather than at probe, and occupancy filters and
// watchpoints are not programmed (such events are refused, so --backend auto sends them to perf).
#include "cmn_driver.h"

#include <memory>

#include <fmt/format.h>

#include "cmn_plan.h"
#include "pmukit/families/cmn/cmn_layout.h"
#include "pmukit/families/cmn/cmn_regs.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

namespace cmn = regs::cmn;
// DTC_CTL while a cycles event runs: trace on, clock gating off (arm_cmn_event_start()).
constexpr RegValue<cmn::DtcCtl> kDtcCyclesOn = cmn::DtcCtl::DtEn::put(1) | cmn::DtcCtl::CgDisable::put(1);
using discovery::CmnUnit;
using Role = CmnRole;

class CmnDriver : public UnitDriver {
 public:
  explicit CmnDriver(const UnitLayout& layout) : UnitDriver(layout), mesh_(*layout.unit->as<CmnUnit>()) {}

  std::optional<Busy> busy(WriteGuard& g) const override {
    const Reg& pmcr = layout_.at(Role::PmuControl, 0);
    if (auto v = read_as<cmn::DtcPmcr>(g, pmcr); cmn::DtcPmcr::PmuEn::get(v))
      return Busy{pmcr, v.raw, fmt::format("PMCR of DTC 0 is {:#x}: the mesh's counters are enabled", v.raw)};
    for (unsigned i : layout_.indices(Role::DtmConfig)) {
      const Reg& cfg = layout_.at(Role::DtmConfig, i);
      const auto v = read_as<cmn::DtmPmuConfig>(g, cfg);
      if (cmn::dtm_is_paired(v, 0) || cmn::dtm_is_paired(v, 1) || cmn::dtm_is_paired(v, 2) || cmn::dtm_is_paired(v, 3))
        return Busy{cfg, v.raw,
                    fmt::format("por_dtm_pmu_config of DTM {} is {:#x}: its counters are paired", i, v.raw)};
    }
    return std::nullopt;
  }

  std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const override {
    CmnPlan plan;
    return plan_cmn_events(mesh_, unit_.name, events, plan);
  }

  // Stopped; the DTCs on; whatever the last configuration paired or selected released as
  // arm_cmn_event_clear() and arm_cmn_event_stop() release it.
  void reset(WriteGuard& g) override {
    cycles_on_ = 0;
    for (unsigned d = 0; d < mesh_.dtcs.size(); ++d) {
      g.write(layout_.at(Role::DtcControl, d), cmn::DtcCtl::DtEn::put(1).raw);
      // DTC 0's PMU_EN gates the mesh (arm_cmn_set_state()); the others stay enabled.
      g.write(layout_.at(Role::PmuControl, d), d == 0 ? 0 : cmn::DtcPmcr::PmuEn::put(1).raw);
    }
    if (programmed_) {
      for (const auto& s : programmed_->plan.selects) g.write(select(s.node, s.part), 0);
      for (const auto& [dtm, value] : programmed_->plan.dtm_config)
        g.write(layout_.at(Role::DtmConfig, dtm), cmn::DtmPmuConfig::PmuEn::put(1).raw);
    }
    programmed_.reset();
  }

  void configure(WriteGuard& g, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) override {
    configure_placed(g, events, place(events), plan);
  }

  std::shared_ptr<const Placement> place(const std::vector<syntax::EncodedEvent>& events) const override {
    auto placed = std::make_shared<CmnPlacement>();
    if (auto refused = plan_cmn_events(mesh_, unit_.name, events, placed->plan)) throw Error(refused->message());
    for (const auto& e : placed->plan.events) {
      auto& loads = placed->loads.emplace_back();
      auto& slices = placed->slices.emplace_back();
      if (e.cycles) continue;
      for (const auto& c : e.locals) {
        loads.push_back(layout_.at(Role::DtmCounter, c.dtm));
        slices.push_back({static_cast<std::uint8_t>(c.index * cmn::kDtmCounterBits), cmn::kDtmCounterBits, 0});
      }
      for (unsigned d = 0; d < mesh_.dtcs.size(); ++d) {
        loads.push_back(layout_.at(Role::Counter, e.global, d));
        slices.push_back({0, cmn::kDtcCounterBits, cmn::kDtmCounterBits});
      }
    }
    return placed;
  }

  // Per event: its local counters paired (each DTM's PMU_CONFIG as paired so far), its global
  // counter of every DTC initialised, then the event select slot of each node; the sum of the
  // local counters' slices and the DTC counters they carry into is its count.
  void configure_placed(WriteGuard& g, const std::vector<syntax::EncodedEvent>& events,
                        const std::shared_ptr<const Placement>& placed, SamplePlan& plan) override {
    if (!placed) return configure(g, events, plan);
    programmed_ = std::static_pointer_cast<const CmnPlacement>(placed);
    const CmnPlacement& p = *programmed_;
    for (std::size_t i = 0; i < p.plan.events.size(); ++i) {
      const CmnEventPlan& e = p.plan.events[i];
      if (e.cycles) {
        g.write(layout_.at(Role::DtcControl, e.domain), kDtcCyclesOn.raw);
        cycles_on_ |= 1u << e.domain;
        g.write(layout_.at(Role::CycleCounter, e.domain), cmn::kCycleInit);
        plan.add(layout_.at(Role::CycleCounter, e.domain), cmn::kCycleCounterBits);
        continue;
      }
      for (const auto& c : e.locals) g.write(layout_.at(Role::DtmConfig, c.dtm), c.dtm_config.raw);
      for (unsigned d = 0; d < mesh_.dtcs.size(); ++d)
        g.write(layout_.at(Role::Counter, e.global, d), cmn::kCounterInit);
      for (const auto& c : e.locals) g.write(select(c.node, c.part), c.event_select);
      plan.add_sliced(p.loads[i], p.slices[i], cmn::kDtcCounterBits + cmn::kDtmCounterBits);
    }
  }

  // A cycle counter stopped (stop()) and started again without a new configuration gets its clock
  // gating turned off again, as arm_cmn_event_start() does.
  void start(WriteGuard& g) override {
    for (unsigned d = 0; d < mesh_.dtcs.size() && cg_released_; ++d)
      if (cycles_on_ >> d & 1) g.write(layout_.at(Role::DtcControl, d), kDtcCyclesOn.raw);
    cg_released_ = false;
    g.write(layout_.at(Role::PmuControl, 0), cmn::DtcPmcr::PmuEn::put(1).raw);
  }
  // The mesh stopped (arm_cmn_set_state()), then each running cycle counter's DTC back to clock
  // gating (arm_cmn_event_stop()).
  void stop(WriteGuard& g) override {
    g.write(layout_.at(Role::PmuControl, 0), 0);
    for (unsigned d = 0; d < mesh_.dtcs.size(); ++d)
      if (cycles_on_ >> d & 1) g.write(layout_.at(Role::DtcControl, d), cmn::DtcCtl::DtEn::put(1).raw);
    cg_released_ = cycles_on_ != 0;
  }

  void restore(WriteGuard& g, RestorePhase phase) override {
    if (phase == RestorePhase::Quiesce) {
      for (unsigned d = 0; d < mesh_.dtcs.size(); ++d) {
        const Reg& pmcr = layout_.at(Role::PmuControl, d);
        g.write(pmcr, cmn::DtcPmcr::PmuEn::clear(RegValue<cmn::DtcPmcr>{g.original(pmcr)}).raw);
      }
    }
    if (phase != RestorePhase::PutBack) return;
    // Everything but PMCR by value (DTC_CTL, counters, DTM configs, event selects), then PMCR.
    for (const auto& r : layout_.registers)
      if (r.owned && !r.is(Role::PmuControl)) g.write(r.reg, g.original(r.reg));
    for (unsigned d = 0; d < mesh_.dtcs.size(); ++d) {
      const Reg& pmcr = layout_.at(Role::PmuControl, d);
      g.write(pmcr, g.original(pmcr));
    }
  }

 private:
  const Reg& select(unsigned node, unsigned part) const { return layout_.at(Role::EventSelect, node, part); }

  // Where a set of events goes on the mesh, and the loads and slices each is read from.
  struct CmnPlacement : Placement {
    CmnPlan plan;
    std::vector<std::vector<Reg>> loads;  // per event (none for a cycles event)
    std::vector<std::vector<SamplePlan::Slice>> slices;
  };

  const CmnUnit& mesh_;
  std::shared_ptr<const CmnPlacement> programmed_;  // what configure() programmed: reset() releases it
  unsigned cycles_on_ = 0;                          // DTC domains whose cycle counter is programmed (bit per domain)
  bool cg_released_ = false;                        // stop() put those DTCs back to clock gating
};

}  // namespace

std::unique_ptr<UnitDriver> make_cmn(const UnitLayout& layout, const platform::Database&) {
  const auto& u = *layout.unit->as<CmnUnit>();
  const std::string& name = layout.unit->name;
  if (!u.kernel_pmu.empty())
    throw Error(fmt::format("{}: the kernel's arm-cmn driver has this mesh ({}): with CONFIG_IO_STRICT_DEVMEM the "
                            "kernel refuses /dev/mem on the region it claimed, and direct programming would share "
                            "PMCR and the DTMs with it; count through perf (--backend perf or auto), or unload it "
                            "(modprobe -r arm-cmn)",
                            name, u.kernel_pmu));
  if (!u.walked) throw Error(fmt::format("{}: the mesh's node tree was not read (pmu-discover --cmn says why)", name));
  if (u.dtcs.empty()) throw Error(fmt::format("{}: the mesh has no DTC node: nothing counts its events", name));
  return std::make_unique<CmnDriver>(layout);
}

}  // namespace pmukit::pmu
