// pmukit -- Arm CoreSight PMU driver (APMT-described blocks: NVIDIA Grace/Tegra410, Ampere, others).
//
// Programming follows Linux arm_cspmu.c (arm_cspmu_set_event, set_ev_filter, set_cc_filter,
// arm_cspmu_enable_counter, arm_cspmu_start_counters): PMEVTYPER/PMEVFILTR/PMEVFILT2R per counter,
// PMCCFILTR for the cycle counter (index 31), PMCNTENSET/CLR in banks of 32, PMCR.E to count.
// Where pmukit differs: PMCR.P/C reset the counters when programming starts (the kernel writes a
// start value into each counter instead), PMCR's other bits are kept, no overflow interrupt is
// enabled (PMINTENSET: nothing in userspace would take it), and all counters start with one
// PMCNTENSET write per bank. How config words become register values is platform data
// (CoreSightProgramming), the arm_cspmu impl_ops idea.
#include <map>

#include <fmt/format.h>

#include "coresight_driver.h"
#include "pmukit/families/coresight/coresight_layout.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/platform/database.h"

namespace pmukit::pmu {

namespace {

using namespace regs::coresight;
using Role = CoreSightRole;

class CoreSightDriver : public UnitDriver {
 public:
  CoreSightDriver(const UnitLayout& layout, platform::CoreSightProgramming prog)
      : UnitDriver(layout), prog_(std::move(prog)), pmcr_(layout.at(Role::PmuControl)),
        general_(layout.indices(Role::Counter)), cc_(layout.count(Role::CycleCounter) > 0),
        banks_(static_cast<unsigned>(layout.count(Role::EnableSet))) {}

  std::optional<Busy> busy(WriteGuard& g) const override {
    for (unsigned b = 0; b < banks_; ++b) {
      const Reg& set = layout_.at(Role::EnableSet, b);
      if (auto v = g.read(set)) return Busy{set, v, fmt::format("PMCNTENSET{} is {:#x}: counters are enabled", b, v)};
    }
    return std::nullopt;
  }

  std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const override {
    std::size_t general = 0, cycles = 0;
    std::optional<std::vector<std::uint64_t>> aux;
    for (const auto& e : events) {
      const std::uint64_t cfg[3] = {e.config, e.config1, e.config2};
      for (const auto& u : prog_.unsupported)
        if (u.bits.take(cfg))
          return DoesNotFit{fmt::format("{}: {}", unit_.name, u.why),
                            u.advice.empty() ? fmt::format("({})", e.name) : fmt::format("{} ({})", u.advice, e.name)};
      (is_cycles(e) ? cycles : general) += 1;
      std::vector<std::uint64_t> mine;
      for (const auto& a : prog_.aux) mine.push_back(a.value.assemble(cfg));
      if (aux && *aux != mine)
        return DoesNotFit{fmt::format("{}: events need different values in the shared filter registers", unit_.name)};
      aux = mine;
    }
    if (auto broken = one_bdf_filter(events)) return broken;
    if (cycles && !cc_) return DoesNotFit{fmt::format("{}: the block has no cycle counter", unit_.name)};
    if (cycles > 1)
      return DoesNotFit{fmt::format("{}: {} events need the cycle counter, and the block has one (Linux "
                                    "arm_cspmu.c arm_cspmu_get_event_idx: one cycles event at a time)",
                                    unit_.name, cycles),
                        "", false, true};
    if (general > general_.size())
      return DoesNotFit{fmt::format("{}: {} events but the block has {} counters{}", unit_.name, events.size(),
                                    general_.size(), cc_ ? " and a cycle counter" : ""),
                        "", false, true};
    return std::nullopt;
  }

  void reset(WriteGuard& g) override {
    // Stopped, and every counter reset, before any is programmed.
    g.write(pmcr_, (Pmcr::E::clear(original_pmcr(g)) | Pmcr::P::put(1) | Pmcr::C::put(1)).raw);
  }

  void configure(WriteGuard& g, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) override {
    enable_.assign(banks_, 0);
    std::size_t next = 0;
    slots_.clear();  // members, not locals: a multiplexed unit is configured at every turn
    for (const auto& e : events) {
      const std::uint64_t cfg[3] = {e.config, e.config1, e.config2};
      unsigned n = is_cycles(e) ? kCycleCounter : general_[next++];
      if (n == kCycleCounter) {
        g.write(layout_.at(Role::CycleFilter), prog_.pmccfiltr.assemble(cfg));
      } else {
        g.write(layout_.at(Role::EventType, n), prog_.pmevtyper.assemble(cfg));
        g.write(layout_.at(Role::EventFilter, n), prog_.pmevfiltr.assemble(cfg));
        g.write(layout_.at(Role::EventFilter2, n), prog_.pmevfilt2r.assemble(cfg));
      }
      for (std::size_t i = 0; i < prog_.aux.size(); ++i)
        g.write(layout_.at(Role::AuxFilter, static_cast<unsigned>(i)), prog_.aux[i].value.assemble(cfg));
      enable_[n / kCountersPerBank] |= 1u << (n % kCountersPerBank);
      slots_.push_back(n);
    }
    // The overflow flags of our counters are read before them, and cleared once seen.
    status_of_bank_.assign(banks_, -1);
    for (unsigned b = 0; b < banks_; ++b)
      if (enable_[b]) {
        status_of_bank_[b] = static_cast<int>(plan.status.size());
        plan.status.push_back({layout_.at(Role::OverflowClear, b), enable_[b]});
      }
    for (unsigned n : slots_) {
      auto i = plan.add(counter(n), unit_.counter_width);
      plan.counters[i].status = status_of_bank_[n / kCountersPerBank];
      plan.counters[i].bit = n % kCountersPerBank;
    }
  }

  void start(WriteGuard& g) override {
    // One write per bank, so every counter starts together.
    for (unsigned b = 0; b < enable_.size(); ++b)
      if (enable_[b]) g.write(layout_.at(Role::EnableSet, b), enable_[b]);
    g.write(pmcr_, (Pmcr::C::clear(Pmcr::P::clear(original_pmcr(g))) | Pmcr::E::put(1)).raw);
  }

  void stop(WriteGuard& g) override {
    for (unsigned b = 0; b < enable_.size(); ++b)
      if (enable_[b]) g.write(layout_.at(Role::EnableClear, b), enable_[b]);
  }

  // The killed run's counters: those enabled now, and those whose overflow flag was raised since
  // the original was saved (a run killed after stop() has its counters disabled already).
  void adopt(WriteGuard& g) override {
    enable_.assign(banks_, 0);
    for (unsigned b = 0; b < banks_; ++b) {
      const Reg& ovs = layout_.at(Role::OverflowClear, b);
      const auto raised = g.read(ovs) & ~g.original(ovs);
      enable_[b] = static_cast<std::uint32_t>(g.read(layout_.at(Role::EnableSet, b)) | raised);
    }
  }

  void restore(WriteGuard& g, RestorePhase phase) override {
    if (phase == RestorePhase::Quiesce) {
      g.write(pmcr_, Pmcr::E::clear(original_pmcr(g)).raw);  // nothing counts while we restore
      for (unsigned b = 0; b < enable_.size(); ++b)
        if (enable_[b]) g.write(layout_.at(Role::EnableClear, b), enable_[b]);
    }
    if (phase != RestorePhase::PutBack) return;
    for (const auto& r : layout_.registers)
      if (r.owned && !write_one(r) && !r.is(Role::PmuControl)) g.write(r.reg, g.original(r.reg));
    // Write-one registers are restored by effect, not by value: clear the overflow flags our run
    // raised, and re-enable what was enabled before.
    for (unsigned b = 0; b < enable_.size(); ++b) {
      const Reg& ovs = layout_.at(Role::OverflowClear, b);
      if (auto seen = static_cast<std::uint32_t>(g.read(ovs)) & enable_[b]) g.write(ovs, seen);
    }
    for (unsigned b = 0; b < banks_; ++b) {
      const Reg& set = layout_.at(Role::EnableSet, b);
      if (auto was = g.original(set)) g.write(set, was);
    }
    g.write(pmcr_, g.original(pmcr_));
  }

 private:
  RegValue<Pmcr> original_pmcr(const WriteGuard& g) const { return RegValue<Pmcr>{g.original(pmcr_)}; }
  // Linux nvidia_cspmu.c pcie_v2_pmu_validate_event, for events on general counters (the cycle
  // counter is exempt): a root-port mask and a BDF filter exclude each other in one event (a kernel
  // rule: refused); and the RC has one BDF filter for all its counters, so the events on them at
  // one time must agree on it (an event without one counts as BDF 0, as in the kernel's
  // comparison). The kernel checks that when it schedules an event (arm_cspmu_get_event_idx): one
  // that disagrees with the events already on the counters waits for a later turn, so ungrouped
  // events with different BDF filters are multiplexed (counters_short); a {...} group whose members
  // disagree is refused. Group members without a filter already carry their leader's (below).
  std::optional<DoesNotFit> one_bdf_filter(const std::vector<syntax::EncodedEvent>& events) const {
    if (!prog_.one_bdf_filter) return std::nullopt;
    const auto& rule = *prog_.one_bdf_filter;
    std::optional<std::pair<std::uint64_t, std::string>> first;  // effective BDF filter, its event
    for (const auto& e : events) {
      if (is_cycles(e)) continue;
      const std::uint64_t cfg[3] = {e.config, e.config1, e.config2};
      const bool enabled = rule.enable.take(cfg) != 0;
      if (enabled && rule.rp_mask.take(cfg))
        return DoesNotFit{fmt::format("event '{}': a root-port mask and the BDF filter exclude each other on {} "
                                      "(src_rp_mask with src_bdf_en; Linux nvidia_cspmu.c pcie_v2_pmu_validate_event)",
                                      e.name, unit_.name),
                          "", true};
      const std::uint64_t bdf = enabled ? rule.bdf.take(cfg) + 1 : 0;  // +1: BDF 0 filtered is not "none"
      if (!first) {
        first.emplace(bdf, e.name);
      } else if (first->first != bdf) {
        return DoesNotFit{fmt::format("events '{}' and '{}': {} has one BDF filter for all its counters, and "
                                      "they do not filter the same BDF (an event without src_bdf_en filters none); "
                                      "counted at one time, events must agree on it (Linux nvidia_cspmu.c "
                                      "pcie_v2_pmu_validate_event)",
                                      first->second, e.name, unit_.name),
                          "", true, true};
      }
    }
    return std::nullopt;
  }

  // Linux nvidia_cspmu.c pcie_v2_pmu_event_filter: an event whose filter fields are all 0 takes
  // its group leader's filter when the leader filters by BDF (src_bdf_en), else the default (all
  // root ports). Not the cycles event: its PMCCFILTR is nv_cspmu_set_cc_filter's, from the
  // event's own filter fields (nv_cspmu_event_filter: 0 means filter_default_val, all root ports).
  void inherit_group_filters(std::vector<syntax::EncodedEvent>& events, const std::vector<int>& group) const override {
    if (!prog_.one_bdf_filter) return;
    const auto& rule = *prog_.one_bdf_filter;
    std::map<int, std::size_t> leader;  // group -> its first event
    for (std::size_t i = 0; i < events.size() && i < group.size(); ++i) {
      if (group[i] < 0) continue;
      auto [it, first] = leader.emplace(group[i], i);
      if (first || is_cycles(events[i])) continue;
      const auto& lead = events[it->second];
      const std::uint64_t from[3] = {lead.config, lead.config1, lead.config2};
      std::uint64_t cfg[3] = {events[i].config, events[i].config1, events[i].config2};
      if (rule.rp_mask.take(cfg) || rule.bdf.take(cfg) || rule.enable.take(cfg) || !rule.enable.take(from)) continue;
      for (const auto* bits : {&rule.rp_mask, &rule.bdf, &rule.enable}) bits->copy(from, cfg);
      events[i].config = cfg[0];
      events[i].config1 = cfg[1];
      events[i].config2 = cfg[2];
    }
  }

  static bool write_one(const UnitRegister& r) {
    return r.is(Role::EnableSet) || r.is(Role::EnableClear) || r.is(Role::OverflowClear);
  }
  bool is_cycles(const syntax::EncodedEvent& e) const {
    const std::uint64_t cfg[3] = {e.config, e.config1, e.config2};
    if (!prog_.cycles_bit) return false;
    const std::uint64_t v = prog_.cycles_bit->take(cfg);
    return prog_.cycles_equals ? v == prog_.cycles_equals : v != 0;
  }
  const Reg& counter(unsigned n) const {
    return n == kCycleCounter ? layout_.at(Role::CycleCounter, n) : layout_.at(Role::Counter, n);
  }

  platform::CoreSightProgramming prog_;
  const Reg& pmcr_;
  std::vector<unsigned> general_;    // physical indices of the event counters
  std::vector<unsigned> slots_;      // configure(): the counter of each event
  std::vector<int> status_of_bank_;  // configure(): each bank's index in the plan's status, -1: none
  bool cc_;
  unsigned banks_;                     // SET/CLR/OVS banks the layout has
  std::vector<std::uint32_t> enable_;  // PMCNTENSET bits we set, per bank
};

}  // namespace

std::unique_ptr<UnitDriver> make_coresight(const UnitLayout& layout, const platform::Database& db) {
  const auto* kind = db.pmu_kind(layout.unit->pmu_kind);
  auto prog = kind && kind->coresight ? *kind->coresight : platform::CoreSightProgramming::arm_default();
  return std::make_unique<CoreSightDriver>(layout, std::move(prog));
}

}  // namespace pmukit::pmu
