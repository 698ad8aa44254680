// pmukit -- Tegra410 NVLink-C2C / NV-CLink / NV-DLink and CMEM latency drivers. Every event has
// its own counter register in each instance; a count is the sum over the instances (the cycle
// counter is taken from one instance), as the kernel drivers report them.
#include <fmt/format.h>

#include "drivers.h"
#include "pmukit/pmu/t410_regs.h"
#include "pmukit/util/bits.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

using discovery::T410Unit;
using namespace t410;

class T410Driver : public UnitDriver {
 public:
  T410Driver(const discovery::PmuUnit& unit, bool cmem) : UnitDriver(unit), u_(*unit.as<T410Unit>()), cmem_(cmem) {}

  std::vector<Reg> registers() const override {
    if (cmem_) return {bcast(CMEM_CG_CTRL), bcast(CMEM_CTRL)};
    return {bcast(C2C_CTRL)};
  }

  std::vector<std::pair<std::uint64_t, std::uint64_t>> mmio_blocks() const override {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> b;
    for (auto base : u_.instance_bases) b.push_back({base, u_.region_size});
    b.push_back({*u_.broadcast_base, u_.region_size});
    return b;
  }

  std::optional<std::string> busy(WriteGuard& g) const override {
    if (cmem_ ? g.read(bcast(CMEM_CTRL)) == 1 : g.read(bcast(C2C_CTRL)) != 0)
      return fmt::format("its control register reads enabled");
    return std::nullopt;
  }

  void check(const std::vector<events::EncodedEvent>& events) const override {
    for (const auto& e : events) {
      std::uint64_t ev = bits(e.config, 3, 0);
      if (cmem_ ? ev > kCmemRdCumOuts : ev >= std::size(kC2cCounters))
        throw UsageError(fmt::format("{}: event {} does not exist", unit_.name, ev));
      if (e.config1)
        throw UsageError(fmt::format("{}: gpu_mask selects instances through the ACPI _DSD gpu*_en_mask properties, "
                                     "which Linux does not export; count it with --backend perf",
                                     unit_.name));
    }
  }

  void program(WriteGuard& g, const std::vector<events::EncodedEvent>& events) override {
    check(events);
    events_.clear();
    for (const auto& e : events) events_.push_back(static_cast<unsigned>(bits(e.config, 3, 0)));
    if (cmem_) {  // clear the counters with the clock on, as the driver's disable path does
      g.write(bcast(CMEM_CG_CTRL), 1);
      g.write(bcast(CMEM_CTRL), 2);
    } else {
      g.write(bcast(C2C_CTRL), 0);
    }
    g.barrier();
  }

  void start(WriteGuard& g) override {
    // C2C counters restart from 0 when enabled (nvidia_t410_c2c_pmu.c); CMEM was cleared above.
    g.write(bcast(cmem_ ? CMEM_CTRL : C2C_CTRL), 1);
    g.barrier();
  }

  void stop(WriteGuard& g) override {
    g.write(bcast(cmem_ ? CMEM_CTRL : C2C_CTRL), 0);
    g.barrier();
  }

  void read(WriteGuard& g, std::vector<Reading>& out) override {
    out.resize(events_.size());
    for (std::size_t i = 0; i < events_.size(); ++i) out[i] = {sum(g, events_[i]), false};
  }

  unsigned width(std::size_t) const override { return 64; }

  void restore(WriteGuard& g) override {
    // The counters are not writable: they go back to zero through a disable, clear (CMEM) or
    // re-enable (C2C), then the controls take their saved values.
    if (cmem_) {
      g.write(bcast(CMEM_CTRL), 0);
      g.write(bcast(CMEM_CG_CTRL), 1);
      g.write(bcast(CMEM_CTRL), 2);
      g.barrier();
      g.write(bcast(CMEM_CTRL), g.original(bcast(CMEM_CTRL)));
      g.write(bcast(CMEM_CG_CTRL), g.original(bcast(CMEM_CG_CTRL)));
    } else {
      g.write(bcast(C2C_CTRL), 0);
      g.barrier();
      g.write(bcast(C2C_CTRL), 1);
      g.barrier();
      g.write(bcast(C2C_CTRL), g.original(bcast(C2C_CTRL)));
    }
    g.barrier();
  }

 private:
  Reg bcast(std::uint32_t off) const {
    return cmem_ ? mmio64(*u_.broadcast_base + off, true) : mmio32(*u_.broadcast_base + off);
  }
  Reg reg(std::uint64_t base, std::uint32_t off) const {
    return cmem_ ? mmio64(base + off, true) : mmio64(base + off, false);
  }

  std::uint64_t sum(WriteGuard& g, unsigned ev) const {
    const auto& bases = u_.instance_bases;
    if (cmem_) {
      if (ev == kCmemCycles) return g.read(reg(bases.front(), CMEM_CYCLE_CNTR));
      std::uint64_t s = 0;
      for (auto base : bases)
        for (auto off : ev == kCmemRdReq ? kCmemReq : kCmemAor) s += g.read(reg(base, off));
      return s;
    }
    if (ev == kC2cCycles) return g.read(reg(bases.front(), kC2cCounters[ev]));
    std::uint64_t s = 0;
    for (auto base : bases) s += g.read(reg(base, kC2cCounters[ev]));
    return s;
  }

  const T410Unit& u_;
  bool cmem_;
  std::vector<unsigned> events_;
};

}  // namespace

std::unique_ptr<UnitDriver> make_t410_block(const discovery::PmuUnit& unit) {
  const auto& u = *unit.as<T410Unit>();
  if (u.instance_bases.empty() || !u.broadcast_base || u.region_size == 0)
    throw Error(fmt::format("{}: its register regions are not visible here ({}); pmukit cannot program it directly, "
                            "use --backend perf",
                            unit.name, u.resources_source.empty() ? "no resources" : u.resources_source));
  return std::make_unique<T410Driver>(unit, unit.family == discovery::Family::T410CmemLatency);
}

}  // namespace pmukit::pmu
