// pmukit -- simulated Tegra410 C2C-family and CMEM latency blocks: broadcast enable, restart or
// clear of every instance's counters, and per-instance counting at the modelled rates.
#include <array>

#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/t410_regs.h"
#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

namespace {

using discovery::T410Unit;
using namespace pmu::t410;

class T410Model : public UnitModel {
 public:
  T410Model(const discovery::PmuUnit& unit, const Rates& rates)
      : u_(*unit.as<T410Unit>()), kind_(unit.pmu_kind), rates_(rates),
        cmem_(unit.family == discovery::Family::T410CmemLatency), acc_(u_.instance_bases.size()) {}

  void step(pmu::RegisterIo& io, std::uint64_t dt_ns) override { cmem_ ? step_cmem(io, dt_ns) : step_c2c(io, dt_ns); }

 private:
  void step_c2c(pmu::RegisterIo& io, std::uint64_t dt_ns) {
    bool enabled = io.read(pmu::mmio32(*u_.broadcast_base + C2C_CTRL)) != 0;
    if (enabled && !was_enabled_) zero_all(io);  // the counters start from 0 again on restart
    was_enabled_ = enabled;
    if (!enabled || !dt_ns) return;
    for (std::size_t i = 0; i < u_.instance_bases.size(); ++i)
      for (unsigned ev = 0; ev < std::size(kC2cCounters); ++ev)
        bump(io, pmu::mmio64(u_.instance_bases[i] + kC2cCounters[ev], false), acc_[i][ev], code(ev), dt_ns);
  }

  void step_cmem(pmu::RegisterIo& io, std::uint64_t dt_ns) {
    const auto ctrl_reg = pmu::mmio64(*u_.broadcast_base + CMEM_CTRL, true);
    std::uint64_t ctrl = io.read(ctrl_reg);
    if (ctrl == 2) {  // clear, then the control reads 0 again
      zero_all(io);
      io.write(ctrl_reg, 0);
      return;
    }
    bool clocked = io.read(pmu::mmio64(*u_.broadcast_base + CMEM_CG_CTRL, true)) == 1;
    if (ctrl != 1 || !clocked || !dt_ns) return;
    for (std::size_t i = 0; i < u_.instance_bases.size(); ++i) {
      std::uint64_t base = u_.instance_bases[i];
      bump(io, pmu::mmio64(base + CMEM_CYCLE_CNTR, true), acc_[i][0], "cycles", dt_ns);
      for (unsigned mc = 0; mc < 3; ++mc) {
        bump(io, pmu::mmio64(base + kCmemReq[mc], true), acc_[i][1 + mc], "0x1", dt_ns);
        bump(io, pmu::mmio64(base + kCmemAor[mc], true), acc_[i][4 + mc], "0x2", dt_ns);
      }
    }
  }

  void zero_all(pmu::RegisterIo& io) {
    for (std::size_t i = 0; i < u_.instance_bases.size(); ++i) {
      std::uint64_t base = u_.instance_bases[i];
      if (cmem_) {
        io.write(pmu::mmio64(base + CMEM_CYCLE_CNTR, true), 0);
        for (unsigned mc = 0; mc < 3; ++mc)
          io.write(pmu::mmio64(base + kCmemReq[mc], true), 0), io.write(pmu::mmio64(base + kCmemAor[mc], true), 0);
      } else {
        for (auto off : kC2cCounters) io.write(pmu::mmio64(base + off, false), 0);
      }
      for (auto& a : acc_[i]) a.reset();
    }
  }

  void bump(pmu::RegisterIo& io, const pmu::Reg& r, Accumulator& acc, const std::string& code, std::uint64_t dt_ns) {
    io.write(r, io.read(r) + acc.advance(rates_.rate(kind_, code), dt_ns));
  }
  static std::string code(unsigned ev) { return ev == kC2cCycles ? "cycles" : "0x" + std::to_string(ev); }

  const T410Unit& u_;
  std::string kind_;
  const Rates& rates_;
  bool cmem_;
  bool was_enabled_ = false;
  std::vector<std::array<Accumulator, 9>> acc_;
};

}  // namespace

std::unique_ptr<UnitModel> make_t410_model(const discovery::PmuUnit& unit, const Rates& rates) {
  const auto& u = *unit.as<T410Unit>();
  if (u.instance_bases.empty() || !u.broadcast_base) return nullptr;
  return std::make_unique<T410Model>(unit, rates);
}

}  // namespace pmukit::sim
