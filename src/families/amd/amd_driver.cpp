// pmukit -- AMD L3 / Data Fabric / UMC counters over MSRs, in Linux uncore.c's sequence: an event
// takes the first free counter (amd_uncore_add); start writes the count (PERF_EF_RELOAD: the
// saved count, here 0) and then the control = hwc->config | enable (amd_uncore_start; UMC:
// amd_uncore_umc_start, enable bit 31); stop writes the control = hwc->config (amd_uncore_stop).
// hwc->config is attr.config & AMD64_RAW_EVENT_MASK_NB (DF with PerfMonV2: _V2_RAW_EVENT_MASK_NB;
// UMC: _V2_RAW_EVENT_MASK_UMC), and on L3 the thread/slice/core bits l3_thread_slice_mask adds.
//
// Where pmukit differs: reset() writes every control and count of the unit to 0 first (the kernel
// leaves counters no event holds alone); they are saved before and put back after.
#include "amd_driver.h"

#include <fmt/format.h>

#include "pmukit/families/amd/amd_layout.h"
#include "pmukit/families/amd/amd_regs.h"
#include "pmukit/families/amd/amd_unit.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

using namespace regs::amd;
using discovery::AmdUnit;
using Role = AmdRole;

namespace {

// l3_thread_slice_mask: family 17h takes the user's slice and thread masks or all of them;
// family 19h and later enable every core, slice and thread unless a thread mask is given.
std::uint64_t l3_selection(AmdUnit::L3Selection style, std::uint64_t config) {
  if (style == AmdUnit::L3Selection::SliceAndThreadMasks) {
    const std::uint64_t slices = config & PerfCtl::SliceMask::mask, threads = config & PerfCtl::ThreadMask8::mask;
    return (slices ? slices : PerfCtl::SliceMask::mask) | (threads ? threads : PerfCtl::ThreadMask8::mask);
  }
  if (!(config & PerfCtl::ThreadMask2::mask))
    return PerfCtl::ThreadMask2::mask | PerfCtl::EnAllSlices::mask | PerfCtl::EnAllCores::mask;
  return config & kL3F19hUserMask;
}

class AmdDriver : public UnitDriver {
 public:
  explicit AmdDriver(const UnitLayout& layout)
      : UnitDriver(layout), counters_(static_cast<unsigned>(layout.count(Role::Control))),
        enable_(amd_enable_bit(*layout.unit)) {}

  std::optional<Busy> busy(WriteGuard& g) const override {
    for (unsigned i = 0; i < counters_; ++i) {
      const Reg& ctl = layout_.at(Role::Control, i);
      if (auto v = g.read(ctl); v & enable_)
        return Busy{ctl, v, fmt::format("PERF_CTL {} ({}) is {:#x}: enabled", i, ctl.str(), v)};
    }
    return std::nullopt;
  }

  std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const override {
    if (events.size() > counters_)
      return DoesNotFit{fmt::format("{}: {} events but it has {} counters", unit_.name, events.size(), counters_), "",
                        false, true};
    for (const auto& e : events)
      if (e.config1 || e.config2)
        return DoesNotFit{fmt::format("{}: config1/config2 are not used by this PMU (Linux uncore.c reads only "
                                      "config)",
                                      unit_.name)};
    return std::nullopt;
  }

  void reset(WriteGuard& g) override {
    for (unsigned i = 0; i < counters_; ++i) g.write(layout_.at(Role::Control, i), 0);
    for (unsigned i = 0; i < counters_; ++i) g.write(layout_.at(Role::Counter, i), 0);
  }

  void configure(WriteGuard& g, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) override {
    words_.clear();
    for (unsigned i = 0; i < events.size() && i < counters_; ++i) {
      words_.push_back(amd_control_word(unit_, events[i].config));
      g.write(layout_.at(Role::Counter, i), 0);  // PERF_EF_RELOAD of a new event's count
      g.write(layout_.at(Role::Control, i), words_.back());
      plan.add(layout_.at(Role::Counter, i), unit_.counter_width);
    }
  }

  void start(WriteGuard& g) override {
    for (unsigned i = 0; i < words_.size(); ++i) g.write(layout_.at(Role::Control, i), words_[i] | enable_);
  }
  void stop(WriteGuard& g) override {
    for (unsigned i = 0; i < words_.size(); ++i) g.write(layout_.at(Role::Control, i), words_[i]);
  }

  void restore(WriteGuard& g, RestorePhase phase) override {
    // Every control disabled before any count goes back, then the controls last.
    if (phase == RestorePhase::Quiesce)
      for (unsigned i = 0; i < counters_; ++i) {
        const Reg& ctl = layout_.at(Role::Control, i);
        g.write(ctl, g.original(ctl) & ~enable_);
      }
    if (phase != RestorePhase::PutBack) return;
    for (unsigned i = 0; i < counters_; ++i)
      g.write(layout_.at(Role::Counter, i), g.original(layout_.at(Role::Counter, i)));
    for (unsigned i = 0; i < counters_; ++i)
      g.write(layout_.at(Role::Control, i), g.original(layout_.at(Role::Control, i)));
  }

 private:
  unsigned counters_;
  std::uint64_t enable_;
  std::vector<std::uint64_t> words_;  // the programmed events' control words, without enable
};

}  // namespace

std::uint64_t amd_enable_bit(const discovery::PmuUnit& unit) {
  return unit.as<AmdUnit>()->kind == AmdUnit::Kind::Umc ? UmcPerfCtl::Enable::mask : PerfCtl::Enable::mask;
}

std::uint64_t amd_control_word(const discovery::PmuUnit& unit, std::uint64_t config) {
  const auto& u = *unit.as<AmdUnit>();
  switch (u.kind) {
  case AmdUnit::Kind::Umc:
    return config & kRawEventMaskUmc;
  case AmdUnit::Kind::Df:
    return config & (u.perfmon_v2 ? kRawEventMaskNbV2 : kRawEventMaskNb);
  case AmdUnit::Kind::L3:
    break;
  }
  return (config & kRawEventMaskNb) | l3_selection(u.l3_selection, config);
}

std::unique_ptr<UnitDriver> make_amd_driver(const UnitLayout& layout) {
  const auto& unit = *layout.unit;
  if (!layout.find(AmdRole::Control)) throw Error(fmt::format("{}: no CPU is known to reach its MSRs", unit.name));
  return std::make_unique<AmdDriver>(layout);
}

}  // namespace pmukit::pmu
