// pmukit -- simulated Intel uncore box (SPR and later, the discovery-table boxes): freeze, reset-
// control and reset-counter bits of the box control, and the event constraints (an event counts
// only on the counters its rule allows).
//
// Counting follows the hardware's rules, not a driver's: a general counter counts the event its
// control selects while the box is not frozen -- these boxes have no per-counter enable bit, and
// Linux never sets one (spr_uncore_msr_enable_event, spr_uncore_mmio_enable_event,
// intel_generic_uncore_*_enable_event write hwc->config as it is). A control that sets a bit outside
// what the unit's type accepts (the kernel's event mask for it, platforms/pmus/intel_uncore.json)
// sets a reserved bit -- bit 22, the EN bit of older uncores, is the case in point: Intel's SPR
// uncore documentation marks it reserved, and a wrmsr of a reserved bit faults. The model treats
// such a control as a write that did not take: it does not count, and the write is reported as a
// fault (Simulator::faults()). A fixed counter's control is enabled by SNBEP_PMON_CTL_EN (bit 22),
// which is what the kernel writes to it.
//
// Boxes of the kernel's fixed tables (Skylake-SP to Ice Lake-SP, BoxRules::Snbep) have the SNB-EP
// box control (RST_CTRL bit 0, RST_CTRS bit 1, FRZ bit 8) and a per-counter enable: a counter
// counts only while its control has bit 22 (EN) set and the box is not frozen (SKX uncore guide:
// the counter control's .en and the unit control's .frz; Linux sets EN in every enable_event of
// uncore_snbep.c's snbep/ivbep/hswep/skx ops). EN is not a reserved bit there.
#include <fmt/format.h>

#include "intel_model.h"
#include "pmukit/families/intel/intel_layout.h"
#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"

namespace pmukit::sim {

namespace {

using namespace regs::intel;
using Role = pmu::IntelRole;

// Where the box control's freeze and reset bits are, by the box's rules.
struct BoxBits {
  std::uint64_t freeze, reset_ctrl, reset_ctrs;
};

BoxBits box_bits(bool snbep) {
  if (snbep)
    return {SnbepBoxCtl::Freeze::put(1).raw, SnbepBoxCtl::ResetCtrl::put(1).raw, SnbepBoxCtl::ResetCtrs::put(1).raw};
  return {BoxCtl::Freeze::put(1).raw, BoxCtl::ResetCtrl::put(1).raw, BoxCtl::ResetCtrs::put(1).raw};
}

class IntelModel : public UnitModel {
 public:
  IntelModel(const pmu::UnitLayout& layout, const Rates& rates, std::uint64_t accepted, bool snbep)
      : l_(layout), kind_(layout.unit->pmu_kind), rates_(rates), mask_(low_mask(layout.unit->counter_width)),
        accepted_(accepted | (snbep ? CtrCtl::Enable::put(1).raw : 0)), enable_(snbep ? CtrCtl::Enable::put(1).raw : 0),
        bits_(box_bits(snbep)), counters_(static_cast<unsigned>(layout.count(Role::CounterControl))), acc_(counters_),
        reported_(counters_) {
    if (const auto* f = layout.find(Role::FixedControl)) fixed_ctl_ = &f->reg, fixed_ctr_ = &l_.at(Role::FixedCounter);
  }

  void step(Registers& io, std::uint64_t dt_ns) override {
    const pmu::Reg& box_ctl = l_.at(Role::BoxControl);
    std::uint64_t box = io.read(box_ctl);
    // Reset bits act once and read back as 0 (they are self-clearing on hardware).
    if (box & bits_.reset_ctrl) {
      for (unsigned i = 0; i < counters_; ++i) io.write(l_.at(Role::CounterControl, i), 0);
      if (fixed_ctl_) io.write(*fixed_ctl_, 0);
    }
    if (box & bits_.reset_ctrs) {
      for (unsigned i = 0; i < counters_; ++i) io.write(l_.at(Role::Counter, i), 0);
      if (fixed_ctr_) io.write(*fixed_ctr_, 0);
      for (auto& a : acc_) a.reset();
    }
    if (box & (bits_.reset_ctrl | bits_.reset_ctrs)) {
      box &= ~(bits_.reset_ctrl | bits_.reset_ctrs);
      io.write(box_ctl, box);
    }
    for (unsigned i = 0; i < counters_; ++i) check_reserved(io, i);
    if ((box & bits_.freeze) || dt_ns == 0) return;
    for (unsigned i = 0; i < counters_; ++i) {
      std::uint64_t ctl = io.read(l_.at(Role::CounterControl, i));
      if (!ctl || (ctl & ~accepted_) || (ctl & enable_) != enable_ || !may_count(ctl, i)) continue;
      Rate rate =
          rates_.lookup(l_.unit->name, kind_, ctl & 0xffff).scaled(rates_.traffic_share(kind_, ctl, l_.unit->name));
      std::uint64_t inc = acc_[i].advance(rate, dt_ns);
      const pmu::Reg& ctr = l_.at(Role::Counter, i);
      io.write(ctr, (io.read(ctr) + inc) & mask_);
    }
    if (fixed_ctl_ && CtrCtl::Enable::get(read_as<CtrCtl>(io, *fixed_ctl_)))
      io.write(*fixed_ctr_,
               (io.read(*fixed_ctr_) + fixed_acc_.advance(rates_.lookup(l_.unit->name, kind_, "fixed"), dt_ns)) &
                   mask_);
  }

 private:
  // A control holding reserved bits is reported once per value it is seen with.
  void check_reserved(Registers& io, unsigned i) {
    const pmu::Reg& r = l_.at(Role::CounterControl, i);
    const std::uint64_t ctl = io.read(r), bad = ctl & ~accepted_;
    if (!bad || reported_[i] == ctl) return;
    reported_[i] = ctl;
    std::string bits;
    for (unsigned b = 0; b < 64; ++b)
      if (bad >> b & 1) bits += fmt::format("{}{}", bits.empty() ? "" : ",", b);
    faults.push_back(fmt::format("{}: counter control {} ({}) = {:#x} sets reserved bit{} {}: the write would fault on "
                                 "hardware; the counter does not count",
                                 l_.unit->name, i, r.str(), ctl, bits.find(',') == std::string::npos ? "" : "s", bits));
  }

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
  std::uint64_t accepted_;  // the bits a general counter control may hold
  std::uint64_t enable_;    // the bit a counter control must hold to count (0: none)
  BoxBits bits_;
  unsigned counters_;
  const pmu::Reg* fixed_ctl_ = nullptr;
  const pmu::Reg* fixed_ctr_ = nullptr;
  std::vector<Accumulator> acc_;
  Accumulator fixed_acc_;
  std::vector<std::uint64_t> reported_;  // per control: the reserved-bit value last reported
};

}  // namespace

std::unique_ptr<UnitModel> make_intel_model(const pmu::UnitLayout& layout, const Rates& rates) {
  const auto& iu = *layout.unit->as<discovery::IntelUnit>();
  if (iu.access == discovery::RegAccess::Msr && iu.msr_cpu < 0) return nullptr;
  const platform::PmuKind* kind = platform::Database::builtin().pmu_kind(layout.unit->pmu_kind);
  std::uint64_t accepted = kind && kind->config_mask ? *kind->config_mask : ~std::uint64_t{0};
  // A 32-bit control holds the low half of what the type accepts.
  if (layout.count(Role::CounterControl) && layout.at(Role::CounterControl).width == 32) accepted &= 0xffffffffull;
  return std::make_unique<IntelModel>(layout, rates, accepted, iu.rules == discovery::BoxRules::Snbep);
}

}  // namespace pmukit::sim
