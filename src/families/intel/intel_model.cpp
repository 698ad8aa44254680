// pmukit -- simulated Intel uncore box: freeze, reset-control, reset-counter and enable bits, and
// the event constraints (an event counts only on the counters its rule allows).
#include "intel_model.h"
#include "pmukit/families/intel/intel_layout.h"
#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/families/intel/intel_unit.h"

namespace pmukit::sim {

namespace {

using namespace regs::intel;
using Role = pmu::IntelRole;

class IntelModel : public UnitModel {
 public:
  IntelModel(const pmu::UnitLayout& layout, const Rates& rates)
      : l_(layout), kind_(layout.unit->pmu_kind), rates_(rates), mask_(low_mask(layout.unit->counter_width)),
        counters_(static_cast<unsigned>(layout.count(Role::CounterControl))), acc_(counters_) {
    if (const auto* f = layout.find(Role::FixedControl)) fixed_ctl_ = &f->reg, fixed_ctr_ = &l_.at(Role::FixedCounter);
  }

  void step(Registers& io, std::uint64_t dt_ns) override {
    const pmu::Reg& box_ctl = l_.at(Role::BoxControl);
    std::uint64_t box = io.read(box_ctl);
    // Reset bits act once and read back as 0 (they are self-clearing on hardware).
    if (BoxCtlResetCtrl::get(box)) {
      for (unsigned i = 0; i < counters_; ++i) io.write(l_.at(Role::CounterControl, i), 0);
      if (fixed_ctl_) io.write(*fixed_ctl_, 0);
    }
    if (BoxCtlResetCtrs::get(box)) {
      for (unsigned i = 0; i < counters_; ++i) io.write(l_.at(Role::Counter, i), 0);
      if (fixed_ctr_) io.write(*fixed_ctr_, 0);
      for (auto& a : acc_) a.reset();
    }
    if (BoxCtlResetCtrl::get(box) || BoxCtlResetCtrs::get(box)) {
      box &= ~(BoxCtlResetCtrl::mask | BoxCtlResetCtrs::mask);
      io.write(box_ctl, box);
    }
    if (BoxCtlFreeze::get(box) || dt_ns == 0) return;
    for (unsigned i = 0; i < counters_; ++i) {
      std::uint64_t ctl = io.read(l_.at(Role::CounterControl, i));
      if (!CtrCtlEnable::get(ctl) || !may_count(ctl, i)) continue;
      Rate rate =
          rates_.lookup(l_.unit->name, kind_, ctl & 0xffff).scaled(rates_.traffic_share(kind_, ctl, l_.unit->name));
      std::uint64_t inc = acc_[i].advance(rate, dt_ns);
      const pmu::Reg& ctr = l_.at(Role::Counter, i);
      io.write(ctr, (io.read(ctr) + inc) & mask_);
    }
    if (fixed_ctl_ && CtrCtlEnable::get(io.read(*fixed_ctl_)))
      io.write(*fixed_ctr_,
               (io.read(*fixed_ctr_) + fixed_acc_.advance(rates_.lookup(l_.unit->name, kind_, "fixed"), dt_ns)) &
                   mask_);
  }

 private:
  // An event on a counter its box type's constraint rule excludes counts nothing here (the hardware
  // does not specify what it counts; Intel's perfmon files list only the allowed counters).
  bool may_count(std::uint64_t ctl, unsigned i) const {
    const auto& c = l_.unit->as<discovery::IntelUnit>()->counter_constraints;
    return !c || (c->counters_for(ctl).value_or(~std::uint32_t{0}) >> i & 1);
  }

  const pmu::UnitLayout& l_;
  std::string kind_;
  const Rates& rates_;
  std::uint64_t mask_;
  unsigned counters_;
  const pmu::Reg* fixed_ctl_ = nullptr;
  const pmu::Reg* fixed_ctr_ = nullptr;
  std::vector<Accumulator> acc_;
  Accumulator fixed_acc_;
};

}  // namespace

std::unique_ptr<UnitModel> make_intel_model(const pmu::UnitLayout& layout, const Rates& rates) {
  const auto& iu = *layout.unit->as<discovery::IntelUnit>();
  if (iu.access == discovery::RegAccess::Msr && iu.msr_cpu < 0) return nullptr;
  return std::make_unique<IntelModel>(layout, rates);
}

}  // namespace pmukit::sim
