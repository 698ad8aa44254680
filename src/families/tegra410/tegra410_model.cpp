// pmukit -- simulated Tegra410 C2C-family and CMEM latency blocks: broadcast enable, restart or
// clear of every instance's counters, and per-instance counting at the modelled rates.
#include <array>

#include "pmukit/families/tegra410/tegra410_layout.h"
#include "pmukit/families/tegra410/tegra410_regs.h"
#include "pmukit/families/tegra410/tegra410_unit.h"
#include "tegra410_model.h"

namespace pmukit::sim {

namespace {

using namespace regs::t410;
using Role = pmu::T410Role;

class T410Model : public UnitModel {
 public:
  T410Model(const pmu::UnitLayout& layout, const Rates& rates)
      : l_(layout), kind_(layout.unit->pmu_kind), rates_(rates),
        cmem_(layout.unit->as<discovery::T410Unit>()->kind == discovery::T410Unit::Kind::CmemLatency),
        instances_(static_cast<unsigned>(layout.unit->as<discovery::T410Unit>()->instance_bases.size())),
        acc_(instances_) {}

  void step(Registers& io, std::uint64_t dt_ns) override { cmem_ ? step_cmem(io, dt_ns) : step_c2c(io, dt_ns); }

 private:
  void step_c2c(Registers& io, std::uint64_t dt_ns) {
    bool enabled = io.read(l_.at(Role::PmuControl)) != kC2cDisable;
    if (enabled && !was_enabled_) zero_all(io);  // the counters start from 0 again on restart
    was_enabled_ = enabled;
    if (!enabled || !dt_ns) return;
    for (unsigned i = 0; i < instances_; ++i)
      for (unsigned ev = 0; ev < std::size(kC2cCounters); ++ev)
        bump(io, l_.at(Role::Counter, ev, i), acc_[i][ev], code(ev), dt_ns);
  }

  void step_cmem(Registers& io, std::uint64_t dt_ns) {
    const pmu::Reg& ctrl_reg = l_.at(Role::PmuControl);
    std::uint64_t ctrl = io.read(ctrl_reg);
    if (ctrl == kCmemClear) {  // clear, then the control reads 0 again
      zero_all(io);
      io.write(ctrl_reg, kCmemDisable);
      return;
    }
    bool clocked = io.read(l_.at(Role::ClockControl)) == kCmemClockOn;
    if (ctrl != kCmemEnable || !clocked || !dt_ns) return;
    for (unsigned i = 0; i < instances_; ++i) {
      bump(io, l_.at(Role::CycleCounter, 0, i), acc_[i][0], "cycles", dt_ns);
      for (unsigned mc = 0; mc < std::size(kCmemReq); ++mc) {
        bump(io, l_.at(Role::RequestCounter, mc, i), acc_[i][1 + mc], "0x1", dt_ns);
        bump(io, l_.at(Role::OutstandingCounter, mc, i), acc_[i][4 + mc], "0x2", dt_ns);
      }
    }
  }

  void zero_all(Registers& io) {
    for (const auto& r : l_.registers)
      if (!r.owned) io.write(r.reg, 0);
    for (auto& instance : acc_)
      for (auto& a : instance) a.reset();
  }

  void bump(Registers& io, const pmu::Reg& r, Accumulator& acc, const std::string& code, std::uint64_t dt_ns) {
    io.write(r, io.read(r) + acc.advance(rates_.lookup(l_.unit->name, kind_, code), dt_ns));
  }
  static std::string code(unsigned ev) { return ev == kC2cCycles ? "cycles" : "0x" + std::to_string(ev); }

  const pmu::UnitLayout& l_;
  std::string kind_;
  const Rates& rates_;
  bool cmem_;
  unsigned instances_;
  bool was_enabled_ = false;
  std::vector<std::array<Accumulator, 9>> acc_;
};

}  // namespace

std::unique_ptr<UnitModel> make_t410_model(const pmu::UnitLayout& layout, const Rates& rates) {
  if (!layout.find(pmu::T410Role::PmuControl)) return nullptr;  // regions not visible: nothing to model
  return std::make_unique<T410Model>(layout, rates);
}

}  // namespace pmukit::sim
