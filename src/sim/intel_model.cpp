// pmukit -- simulated Intel uncore box: freeze, reset-control, reset-counter and enable bits.
#include "pmukit/discovery/intel_discovery_regs.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

namespace {

using discovery::IntelUnit;
using discovery::RegAccess;
using namespace discovery::intel;

class IntelModel : public UnitModel {
 public:
  IntelModel(const discovery::PmuUnit& unit, const Rates& rates)
      : u_(*unit.as<IntelUnit>()), kind_(unit.pmu_kind), rates_(rates), mask_(low_mask(unit.counter_width)),
        acc_(u_.ctr.size()) {}

  void step(pmu::RegisterIo& io, std::uint64_t dt_ns) override {
    std::uint64_t box = io.read(reg(u_.box_ctl, false));
    // Reset bits act once and read back as 0 (they are self-clearing on hardware).
    if (BoxCtlResetCtrl::get(box)) {
      for (auto c : u_.ctl) io.write(reg(c, u_.access == RegAccess::PciConfig), 0);
      if (u_.fixed_ctl) io.write(reg(*u_.fixed_ctl, false), 0);
    }
    if (BoxCtlResetCtrs::get(box)) {
      for (auto c : u_.ctr) io.write(reg(c, true), 0);
      if (u_.fixed_ctr) io.write(reg(*u_.fixed_ctr, true), 0);
      for (auto& a : acc_) a.reset();
    }
    if (BoxCtlResetCtrl::get(box) || BoxCtlResetCtrs::get(box)) {
      box &= ~(BoxCtlResetCtrl::mask | BoxCtlResetCtrs::mask);
      io.write(reg(u_.box_ctl, false), box);
    }
    if (BoxCtlFreeze::get(box) || dt_ns == 0) return;
    for (std::size_t i = 0; i < u_.ctl.size(); ++i) {
      std::uint64_t ctl = io.read(reg(u_.ctl[i], u_.access == RegAccess::PciConfig));
      if (!CtrCtlEnable::get(ctl)) continue;
      std::uint64_t inc = acc_[i].advance(rates_.rate(kind_, ctl & 0xffff), dt_ns);
      Reg ctr = reg(u_.ctr[i], true);
      io.write(ctr, (io.read(ctr) + inc) & mask_);
    }
    if (u_.fixed_ctl && CtrCtlEnable::get(io.read(reg(*u_.fixed_ctl, false)))) {
      Reg ctr = reg(*u_.fixed_ctr, true);
      io.write(ctr, (io.read(ctr) + fixed_acc_.advance(rates_.rate(kind_, "fixed"), dt_ns)) & mask_);
    }
  }

 private:
  using Reg = pmu::Reg;
  Reg reg(std::uint64_t addr, bool wide) const {
    switch (u_.access) {
    case RegAccess::Msr:
      return pmu::msr(static_cast<std::uint32_t>(u_.msr_cpu), addr);
    case RegAccess::Mmio:
      return wide ? pmu::mmio64(addr, true) : pmu::mmio32(addr);
    case RegAccess::PciConfig:
      return wide ? pmu::pci64(*u_.pci_device, addr) : pmu::pci32(*u_.pci_device, addr);
    }
    return {};
  }

  const IntelUnit& u_;
  std::string kind_;
  const Rates& rates_;
  std::uint64_t mask_;
  std::vector<Accumulator> acc_;
  Accumulator fixed_acc_;
};

}  // namespace

std::unique_ptr<UnitModel> make_intel_model(const discovery::PmuUnit& unit, const Rates& rates) {
  const auto& iu = *unit.as<IntelUnit>();
  if (iu.access == RegAccess::Msr && iu.msr_cpu < 0) return nullptr;
  return std::make_unique<IntelModel>(unit, rates);
}

}  // namespace pmukit::sim
