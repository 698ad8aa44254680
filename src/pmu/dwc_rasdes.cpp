// pmukit -- DesignWare PCIe RAS DES driver: one time-based 64-bit counter and one 32-bit lane
// event counter per root port, in config space (Linux dwc_pcie_pmu.c dwc_pcie_pmu_event_add,
// dwc_pcie_pmu_lane_event_enable, dwc_pcie_pmu_time_based_event_enable).
//
// Where pmukit differs: controls are written whole (the kernel read-modify-writes the enable
// field), and the time-based control is written without its start bit until start(), so that
// every unit of a run starts at once (the kernel's event_add already sets it).
#include <fmt/format.h>

#include "drivers.h"
#include "pmukit/regs/designware.h"

namespace pmukit::pmu {

namespace {

using namespace regs::dwc;

class DwcDriver : public UnitDriver {
 public:
  explicit DwcDriver(const UnitLayout& layout)
      : UnitDriver(layout), lane_(layout.at(Role::LaneControl)), time_(layout.at(Role::TimeControl)) {}

  std::optional<Busy> busy(WriteGuard& g) const override {
    if (auto v = g.read(time_); TimeCtlEnable::get(v))
      return Busy{time_, v, "the time-based analysis timer is running"};
    if (auto v = g.read(lane_); EventCntEnable::get(v) == kPerEventOn)
      return Busy{lane_, v, "the lane event counter is enabled"};
    return std::nullopt;
  }

  std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const override {
    unsigned time = 0, lane = 0;
    for (const auto& e : events) {
      auto type = static_cast<unsigned>(ConfigType::get(e.config));
      if (type == kTypeTimeBased)
        ++time;
      else if (type == kTypeLane && lane_beyond_link(e))
        return DoesNotFit{fmt::format("event '{}': lane {} is beyond the {} lanes of {}'s link (Linux "
                                      "dwc_pcie_pmu.c dwc_pcie_pmu_event_init: lane < the Link Capabilities width)",
                                      e.name, ConfigLane::get(e.config), link_lanes(), written(e)),
                          "", true};
      else if (type == kTypeLane)
        ++lane;
      else
        return DoesNotFit{fmt::format("{}: event type {} is neither 0 (time-based) nor 1 (lane)", written(e), type)};
    }
    if (time > 1 || lane > 1)
      return DoesNotFit{
          fmt::format("{}: a root port has one time-based and one lane event counter", written(events.front())),
          fmt::format("{} time-based and {} lane events asked", time, lane), false, true};
    return std::nullopt;
  }

  // The unit as the user named it: pcie_bdf_200/... (the Anolis driver's name) is the root port
  // dwc_rootport_10 also names, and an error says what was written -- the event text before its
  // first '/', or the unit's name when the event is labelled (name=) or has no PMU part.
  std::string written(const syntax::EncodedEvent& e) const {
    const auto slash = e.name.find('/');
    return slash == std::string::npos || slash == 0 ? unit_.name : e.name.substr(0, slash);
  }

  unsigned link_lanes() const {
    const auto* d = std::get_if<discovery::DwcUnit>(&unit_.detail);
    return d ? d->lanes : 0;
  }
  // A lane the link does not have (its width unknown: nothing to check).
  bool lane_beyond_link(const syntax::EncodedEvent& e) const {
    return link_lanes() && ConfigLane::get(e.config) >= link_lanes();
  }

  void reset(WriteGuard&) override {}  // each counter clears as it is configured or started

  void configure(WriteGuard& g, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) override {
    slots_.clear();
    for (const auto& e : events) {
      std::uint64_t id = ConfigEventId::get(e.config);
      if (ConfigType::get(e.config) == kTypeTimeBased) {
        time_ctl_ = TimeCtlReportSelect::put(id) | TimeCtlDuration::put(0);  // manual duration
        g.write(time_, time_ctl_);
        slots_.push_back(true);
        auto c =
            plan.add({layout_.at(Role::TimeCounter)}, 64, id >= kPayloadFirst && id <= kPayloadLast ? kPayloadUnit : 1);
        plan.counters[c].zero_at_start = true;  // start() clears it, after the baseline is read
      } else {
        lane_ctl_ = EventCntSelect::put(id) | EventCntLane::put(ConfigLane::get(e.config));
        // Programmed with the counter off and cleared (EVENT_COUNTER_DATA_REG needs clearing by hand).
        g.write(lane_, lane_ctl_ | EventCntEnable::put(kPerEventOff) | EventCntClear::put(kPerEventClear));
        slots_.push_back(false);
        plan.add({layout_.at(Role::LaneCounter)}, 32);
      }
    }
  }

  void start(WriteGuard& g) override {
    for (bool time : slots_) {
      if (time)
        g.write(time_, time_ctl_ | TimeCtlEnable::put(1));  // starting clears the data
      else
        g.write(lane_, lane_ctl_ | EventCntEnable::put(kPerEventOn));
    }
  }

  void stop(WriteGuard& g) override {
    for (bool time : slots_) {
      if (time)
        g.write(time_, time_ctl_);
      else
        g.write(lane_, lane_ctl_ | EventCntEnable::put(kPerEventOff));
    }
  }

  void restore(WriteGuard& g, RestorePhase phase) override {
    // The data registers are read-only: the lane counter is cleared with its clear bit, and the
    // time-based one by starting (which clears it) and stopping an empty measurement.
    const std::uint64_t lane = g.original(lane_), time = g.original(time_);
    switch (phase) {
    case RestorePhase::Quiesce:
      g.write(lane_,
              (lane & ~EventCntEnable::mask) | EventCntEnable::put(kPerEventOff) | EventCntClear::put(kPerEventClear));
      g.write(time_, time & ~TimeCtlEnable::mask);  // stopped, if restore comes without stop
      break;
    case RestorePhase::Clear:
      g.write(time_, time | TimeCtlEnable::put(1));
      break;
    case RestorePhase::PutBack:
      g.write(time_, time);
      g.write(lane_, lane);
      break;
    }
  }

 private:
  const Reg& lane_;
  const Reg& time_;
  std::uint64_t time_ctl_ = 0, lane_ctl_ = 0;
  std::vector<bool> slots_;  // per programmed event, in order: the time-based counter (else the lane one)
};

}  // namespace

std::unique_ptr<UnitDriver> make_dwc_rasdes(const UnitLayout& layout) {
  return std::make_unique<DwcDriver>(layout);
}

}  // namespace pmukit::pmu
