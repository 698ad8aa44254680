// pmukit -- Tegra410 NVLink-C2C / NV-CLink / NV-DLink and CMEM latency drivers. Every event has
// its own counter register in each instance; a count is the sum over the instances (the cycle
// counter is taken from one instance), as the kernel drivers report them
// (nvidia_t410_c2c_pmu.c nv_c2c_pmu_read_counter, nvidia_t410_cmem_latency_pmu.c
// cmem_lat_pmu_read_req_counter). Controls are written in the broadcast region only.
//
// Where pmukit differs: CMEM's clock stays on from programming until restore (the kernel gates it
// off in cmem_lat_pmu_disable), so stop/start need only CTRL.
#include <fmt/format.h>

#include "pmukit/families/tegra410/tegra410_layout.h"
#include "pmukit/families/tegra410/tegra410_regs.h"
#include "pmukit/families/tegra410/tegra410_unit.h"
#include "pmukit/util/bits.h"
#include "pmukit/util/error.h"
#include "tegra410_driver.h"

namespace pmukit::pmu {

namespace {

using namespace regs::t410;
using Role = T410Role;

class T410Driver : public UnitDriver {
 public:
  T410Driver(const UnitLayout& layout, bool cmem)
      : UnitDriver(layout), cmem_(cmem), ctrl_(layout.at(Role::PmuControl)),
        instances_(unit_.as<discovery::T410Unit>()->instance_bases.size()) {}

  std::optional<Busy> busy(WriteGuard& g) const override {
    auto v = g.read(ctrl_);
    if (cmem_ ? v == kCmemEnable : v != kC2cDisable) return Busy{ctrl_, v, "its control register reads enabled"};
    return std::nullopt;
  }

  std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const override {
    for (const auto& e : events) {
      std::uint64_t ev = bits(e.config, 3, 0);
      if (cmem_ ? ev > kCmemRdCumOuts : ev >= std::size(kC2cCounters))
        return DoesNotFit{fmt::format("{}: event {} does not exist", unit_.name, ev)};
      if (e.config1)
        return DoesNotFit{
            fmt::format("{}: gpu_mask needs which C2C instances lead to which GPU: the ACPI _DSD properties "
                        "gpu0_en_mask/gpu1_en_mask of the NVDA2023 device, which only the kernel's "
                        "nvidia_t410_c2c_pmu driver reads (Linux exports them nowhere)",
                        unit_.name),
            "the kernel's perf PMU of that name counts it where the driver is loaded (--backend auto picks it); "
            "without gpu_mask pmukit counts the traffic of all GPUs directly"};
    }
    return std::nullopt;
  }

  void reset(WriteGuard& g) override {
    if (cmem_) {  // cleared with the clock on, as cmem_lat_pmu_probe does
      g.write(layout_.at(Role::ClockControl), kCmemClockOn);
      g.write(ctrl_, kCmemClear);
    } else {
      g.write(ctrl_, kC2cDisable);
    }
  }

  void configure(WriteGuard&, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) override {
    for (const auto& e : events) {
      auto c = plan.add(counters_of(static_cast<unsigned>(bits(e.config, 3, 0))), 64);
      plan.counters[c].zero_at_start = !cmem_;  // C2C: start() restarts them from 0, after the baseline
    }
  }

  // C2C counters restart from 0 when enabled (nv_c2c_pmu_disable); CMEM was cleared in reset().
  void start(WriteGuard& g) override { g.write(ctrl_, cmem_ ? kCmemEnable : kC2cEnable); }
  void stop(WriteGuard& g) override { g.write(ctrl_, cmem_ ? kCmemDisable : kC2cDisable); }

  void restore(WriteGuard& g, RestorePhase phase) override {
    // The counters are not writable: they go back to zero through a clear (CMEM) or a re-enable
    // (C2C), then the controls take their saved values.
    const Reg* clock = cmem_ ? &layout_.at(Role::ClockControl) : nullptr;
    switch (phase) {
    case RestorePhase::Quiesce:
      g.write(ctrl_, cmem_ ? kCmemDisable : kC2cDisable);
      if (cmem_) g.write(*clock, kCmemClockOn), g.write(ctrl_, kCmemClear);
      break;
    case RestorePhase::Clear:
      if (!cmem_) g.write(ctrl_, kC2cEnable);
      break;
    case RestorePhase::PutBack:
      g.write(ctrl_, g.original(ctrl_));
      if (cmem_) g.write(*clock, g.original(*clock));
      break;
    }
  }

 private:
  std::vector<Reg> counters_of(unsigned ev) const {
    std::vector<Reg> regs;
    if (cmem_) {
      if (ev == kCmemCycles) return {layout_.at(Role::CycleCounter, 0, 0)};
      for (unsigned i = 0; i < instances_; ++i)
        for (unsigned mc = 0; mc < std::size(kCmemReq); ++mc)
          regs.push_back(layout_.at(ev == kCmemRdReq ? Role::RequestCounter : Role::OutstandingCounter, mc, i));
      return regs;
    }
    if (ev == kC2cCycles) return {layout_.at(Role::Counter, ev, 0)};  // one clock: instance 0's
    for (unsigned i = 0; i < instances_; ++i) regs.push_back(layout_.at(Role::Counter, ev, i));
    return regs;
  }

  bool cmem_;
  const Reg& ctrl_;
  unsigned instances_;
};

}  // namespace

std::unique_ptr<UnitDriver> make_t410_block(const UnitLayout& layout) {
  const auto& unit = *layout.unit;
  const auto& u = *unit.as<discovery::T410Unit>();
  if (!layout.find(T410Role::PmuControl))
    throw Error(fmt::format("{}: its register regions are not visible here ({}); pmukit cannot program it directly, "
                            "use --backend perf",
                            unit.name, u.resources_source.empty() ? "no resources" : u.resources_source));
  return std::make_unique<T410Driver>(layout, u.kind == discovery::T410Unit::Kind::CmemLatency);
}

}  // namespace pmukit::pmu
