// pmukit -- simulated AMD uncore counters: a counter counts its control's event while the
// control's enable bit is set (PPR PERF_CTL En, bit 22; UMC bit 31), in 48 bits. An L3 event
// counts only the threads its thread mask selects (PPR ChL3PmcCfg ThreadMask; family 17h also
// SliceMask): a control with none selected counts nothing, as on hardware -- which is why Linux
// fills them in (l3_thread_slice_mask). The event code rates.json names is the control's event
// and unit-mask bits (the kind's raw event mask: umask << 8 | event, and the high event bits).
#include "amd_model.h"

#include "amd_driver.h"
#include "pmukit/families/amd/amd_layout.h"
#include "pmukit/families/amd/amd_regs.h"
#include "pmukit/families/amd/amd_unit.h"

namespace pmukit::sim {

namespace {

using namespace regs::amd;
using discovery::AmdUnit;
using Role = pmu::AmdRole;

std::uint64_t event_mask(const AmdUnit& u) {
  if (u.kind == AmdUnit::Kind::Umc) return kRawEventMaskUmc;
  if (u.kind == AmdUnit::Kind::Df && u.perfmon_v2) return kRawEventMaskNbV2;
  return kRawEventMaskNb;
}

class AmdModel : public UnitModel {
 public:
  AmdModel(const pmu::UnitLayout& layout, const Rates& rates)
      : l_(layout), u_(*layout.unit->as<AmdUnit>()), kind_(layout.unit->pmu_kind), rates_(rates),
        enable_(pmu::amd_enable_bit(*layout.unit)), events_(event_mask(u_)),
        counters_(static_cast<unsigned>(layout.count(Role::Control))), acc_(counters_) {}

  void step(Registers& io, std::uint64_t dt_ns) override {
    if (!dt_ns) return;
    for (unsigned i = 0; i < counters_; ++i) {
      const std::uint64_t ctl = io.read(l_.at(Role::Control, i));
      if (!(ctl & enable_) || !selects_threads(ctl)) continue;
      const std::uint64_t inc = acc_[i].advance(rates_.lookup(l_.unit->name, kind_, ctl & events_), dt_ns);
      const pmu::Reg& ctr = l_.at(Role::Counter, i);
      io.write(ctr, (io.read(ctr) + inc) & low_mask(kCounterWidth));
    }
  }

 private:
  bool selects_threads(std::uint64_t ctl) const {
    if (u_.kind != AmdUnit::Kind::L3) return true;
    const RegValue<PerfCtl> v{ctl};
    if (u_.l3_selection == AmdUnit::L3Selection::SliceAndThreadMasks)
      return PerfCtl::ThreadMask8::get(v) && PerfCtl::SliceMask::get(v);
    return PerfCtl::ThreadMask2::get(v) != 0;
  }

  const pmu::UnitLayout& l_;
  const AmdUnit& u_;
  std::string kind_;
  const Rates& rates_;
  std::uint64_t enable_, events_;
  unsigned counters_;
  std::vector<Accumulator> acc_;
};

}  // namespace

std::unique_ptr<UnitModel> make_amd_model(const pmu::UnitLayout& layout, const Rates& rates) {
  if (!layout.find(pmu::AmdRole::Control)) return nullptr;
  return std::make_unique<AmdModel>(layout, rates);
}

}  // namespace pmukit::sim
