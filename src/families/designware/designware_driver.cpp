// pmukit -- DesignWare PCIe RAS DES driver: one time-based 64-bit counter and a 32-bit counter per
// lane event per root port, in config space (Linux dwc_pcie_pmu.c since commit 71396cfac97d
// "perf/dwc_pcie: Support counting multiple lane events in parallel").
//
// The kernel's rules, function by function, and what this driver does with them:
// - Which lane events count together (dwc_pcie_pmu_validate_add_lane_event, called by
//   dwc_pcie_pmu_validate_group from dwc_pcie_pmu_event_init, and dwc_pcie_pmu_event_add): only
//   groups 6 and 7 (event id bits [11:8]); each of their event ids once per root port, on any one
//   lane -- the kernel keeps one bit per (group, event number), the lane is not part of it. Any
//   number of different ids count at once. fit() refuses a second event of one id as
//   counters_short (perf multiplexes it too; in a {...} group the kernel's -ENOSPC refuses it).
// - Groups 0-5: the kernel refuses them (-EINVAL in validate_add_lane_event, -ENOSPC from
//   event_init). This driver counts them directly, one lane event of the root port at a time, as
//   before the kernel counted in parallel: nothing says their counters run side by side.
// - One time-based event (dwc_pcie_pmu_validate_group, dwc_pcie_pmu_event_add:
//   time_based_event): a second is counters_short.
// - A lane below the link width (dwc_pcie_pmu_event_init: lane < nr_lanes).
// - Programming (dwc_pcie_pmu_event_add): EVENT_CNT_CTL = select | lane | per-event off | per-event
//   clear; start (dwc_pcie_pmu_lane_event_enable): select | lane | per-event clear | per-event on.
//   Each write acts on the one event it selects: EVENT_CNT_CTL is a command register.
// - Reading (dwc_pcie_pmu_read_lane_event_counter): write select | lane | per-event on, read
//   EVENT_CNT_DATA, then write the same with per-event clear: the kernel adds each read to the
//   count. pmukit writes the same select (SamplePlan::Select) and reads, but does not clear: the
//   value is tracked across wraps as every counter is (one write per read, not two), at its
//   group's width (4 bits for groups 0 and 4, 8 for 1-3, else 32: regs::dwc::lane_counter_width),
//   read often enough that none wraps twice unseen.
//
// Where pmukit differs otherwise: controls are written whole, stop() turns an event off without
// clearing it (the kernel reads before it stops; pmukit reads after), and the time-based control
// is written without its start bit until start(), so that every unit of a run starts at once.
// Since the select turns its event on, as the kernel's does, a read after stop() turns it back on
// until restore turns it off; the value read is the stopped one.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "designware_driver.h"
#include "pmukit/families/designware/designware_layout.h"
#include "pmukit/families/designware/designware_regs.h"
#include "pmukit/families/designware/designware_unit.h"

namespace pmukit::pmu {

namespace {

using namespace regs::dwc;
using Role = DwcRole;
using Ctl = EventCntCtl;
using Config = PerfConfig;

RegValue<Config> config(const syntax::EncodedEvent& e) {
  return RegValue<Config>{e.config};
}
RegValue<LaneEventId> lane_event(const syntax::EncodedEvent& e) {
  return RegValue<LaneEventId>{Config::EventId::get(config(e))};
}

bool counts_in_parallel(RegValue<LaneEventId> id) {
  const auto group = LaneEventId::Group::get(id);
  return group >= kParallelGroupFirst && group <= kParallelGroupLast;
}

// The lane event an event names: EVENT_CNT_CTL's select and lane fields, nothing enabled or cleared.
RegValue<Ctl> lane_select(const syntax::EncodedEvent& e) {
  return Ctl::Select::put(Config::EventId::get(config(e))) | Ctl::Lane::put(Config::Lane::get(config(e)));
}

// The EVENT_CNT_CTL write that turns the lane event `select` names off and clears its counter.
RegValue<Ctl> off_and_cleared(RegValue<Ctl> select) {
  return select | Ctl::Enable::put(kPerEventOff) | Ctl::Clear::put(kPerEventClear);
}

class DwcDriver : public UnitDriver {
 public:
  explicit DwcDriver(const UnitLayout& layout)
      : UnitDriver(layout), lane_(layout.at(Role::LaneControl)), time_(layout.at(Role::TimeControl)) {}

  std::optional<Busy> busy(WriteGuard& g) const override {
    if (auto v = read_as<TimeCtl>(g, time_); TimeCtl::Enable::get(v))
      return Busy{time_, v.raw, "the time-based analysis timer is running"};
    if (auto v = read_as<Ctl>(g, lane_); Ctl::Enable::get(v) == kPerEventOn)
      return Busy{lane_, v.raw, "the lane event counter is enabled"};
    return std::nullopt;
  }

  std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const override {
    unsigned time = 0, lane = 0, one_at_a_time = 0;
    std::set<std::uint64_t> ids;
    const syntax::EncodedEvent* again = nullptr;
    for (const auto& e : events) {
      auto type = static_cast<unsigned>(Config::Type::get(config(e)));
      if (type == kTypeTimeBased) {
        ++time;
        continue;
      }
      if (type != kTypeLane)
        return DoesNotFit{fmt::format("{}: event type {} is neither 0 (time-based) nor 1 (lane)", written(e), type)};
      if (lane_beyond_link(e))
        return DoesNotFit{fmt::format("event '{}': lane {} is beyond the {} lanes of {}'s link (Linux "
                                      "dwc_pcie_pmu.c dwc_pcie_pmu_event_init: lane < the Link Capabilities width)",
                                      e.name, Config::Lane::get(config(e)), link_lanes(), written(e)),
                          "", true};
      ++lane;
      const auto id = lane_event(e);
      if (!counts_in_parallel(id))
        ++one_at_a_time;
      else if (!ids.insert(id.raw).second && !again)
        again = &e;
    }
    return short_of(events, time, lane, one_at_a_time, again);
  }

  // The counters-short rules, each naming the kernel function it comes from.
  std::optional<DoesNotFit> short_of(const std::vector<syntax::EncodedEvent>& events, unsigned time, unsigned lane,
                                     unsigned one_at_a_time, const syntax::EncodedEvent* again) const {
    const std::string unit = written(events.front());
    if (time > 1)
      return DoesNotFit{fmt::format("{}: a root port has one time-based counter ({} time-based events asked; Linux "
                                    "dwc_pcie_pmu.c dwc_pcie_pmu_validate_group)",
                                    unit, time),
                        "", false, true};
    if (again)
      return DoesNotFit{fmt::format("{}: lane event {:#x} is asked twice; a root port counts each group 6/7 event "
                                    "once, on one lane (Linux dwc_pcie_pmu.c dwc_pcie_pmu_validate_add_lane_event)",
                                    unit, lane_event(*again).raw),
                        "", false, true};
    if (one_at_a_time && lane > 1)
      return DoesNotFit{fmt::format("{}: a lane event outside groups 6 and 7 counts alone on its root port ({} lane "
                                    "events asked; Linux dwc_pcie_pmu.c counts only groups 6 and 7 in parallel, "
                                    "dwc_pcie_pmu_validate_add_lane_event)",
                                    unit, lane),
                        "", false, true};
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
    const auto* d = unit_.as<discovery::DwcUnit>();
    return d ? d->lanes : 0;
  }
  // A lane the link does not have (its width unknown: nothing to check).
  bool lane_beyond_link(const syntax::EncodedEvent& e) const {
    return link_lanes() && Config::Lane::get(config(e)) >= link_lanes();
  }

  void reset(WriteGuard&) override {}  // each counter clears as it is configured or started

  void configure(WriteGuard& g, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) override {
    slots_.clear();
    for (const auto& e : events) {
      std::uint64_t id = Config::EventId::get(config(e));
      if (Config::Type::get(config(e)) == kTypeTimeBased) {
        time_ctl_ = TimeCtl::ReportSelect::put(id) | TimeCtl::Duration::put(0);  // manual duration
        g.write(time_, time_ctl_.raw);
        slots_.push_back(std::nullopt);
        auto c =
            plan.add(layout_.at(Role::TimeCounter), 64, id >= kPayloadFirst && id <= kPayloadLast ? kPayloadUnit : 1);
        plan.counters[c].zero_at_start = true;  // start() clears it, after the baseline is read
      } else {
        const auto select = lane_select(e);
        // Off and cleared (EVENT_COUNTER_DATA_REG needs clearing by hand), as dwc_pcie_pmu_event_add.
        g.write(lane_, off_and_cleared(select).raw);
        slots_.push_back(select);
        if (std::find(programmed_.begin(), programmed_.end(), select) == programmed_.end())
          programmed_.push_back(select);
        auto c = plan.add(layout_.at(Role::LaneCounter), lane_counter_width(lane_event(e)));
        plan.counters[c].zero_at_start = true;  // start() clears it too
        plan.counters[c].select = static_cast<int>(plan.selects.size());
        plan.selects.push_back({lane_, (select | Ctl::Enable::put(kPerEventOn)).raw});
      }
    }
  }

  // Every lane event off and cleared, in the order restore() turns them off: recovery after a
  // kill makes these writes, since EVENT_CNT_CTL's original value turns off only the one it selects.
  std::vector<JournalEntry> undo(const std::vector<syntax::EncodedEvent>& events) const override {
    std::vector<JournalEntry> writes;
    for (const auto& e : events) {
      if (Config::Type::get(config(e)) == kTypeTimeBased) continue;  // TIME_BASED_ANAL_CTL's original stops it
      const JournalEntry off{lane_, off_and_cleared(lane_select(e)).raw};
      if (std::find(writes.begin(), writes.end(), off) == writes.end()) writes.push_back(off);
    }
    return writes;
  }

  void start(WriteGuard& g) override {
    for (auto slot : slots_) {
      if (!slot)
        g.write(time_, (time_ctl_ | TimeCtl::Enable::put(1)).raw);  // starting clears the data
      else                                                          // dwc_pcie_pmu_lane_event_enable: cleared and on
        g.write(lane_, (*slot | Ctl::Enable::put(kPerEventOn) | Ctl::Clear::put(kPerEventClear)).raw);
    }
  }

  void stop(WriteGuard& g) override {
    for (auto slot : slots_) {
      if (!slot)
        g.write(time_, time_ctl_.raw);
      else
        g.write(lane_, (*slot | Ctl::Enable::put(kPerEventOff)).raw);
    }
  }

  void restore(WriteGuard& g, RestorePhase phase) override {
    // The data registers are read-only: a lane counter is cleared with its clear bit, and the
    // time-based one by starting (which clears it) and stopping an empty measurement.
    const RegValue<Ctl> lane{g.original(lane_)};
    const RegValue<TimeCtl> time{g.original(time_)};
    switch (phase) {
    case RestorePhase::Quiesce:
      for (auto select : programmed_)  // every lane event this run turned on, each off and cleared
        g.write(lane_, off_and_cleared(select).raw);
      g.write(lane_, off_and_cleared(Ctl::Enable::clear(lane)).raw);
      g.write(time_, TimeCtl::Enable::clear(time).raw);  // stopped, if restore comes without stop
      break;
    case RestorePhase::Clear:
      g.write(time_, (time | TimeCtl::Enable::put(1)).raw);
      break;
    case RestorePhase::PutBack:
      g.write(time_, time.raw);
      g.write(lane_, lane.raw);
      break;
    }
  }

 private:
  const Reg& lane_;
  const Reg& time_;
  RegValue<TimeCtl> time_ctl_;
  std::vector<std::optional<RegValue<Ctl>>> slots_;  // per programmed event, in order: its lane select, or
                                                     // nullopt for the time-based counter
  std::vector<RegValue<Ctl>> programmed_;            // every lane select configured since the driver was made, in order
};

}  // namespace

std::unique_ptr<UnitDriver> make_dwc_rasdes(const UnitLayout& layout) {
  return std::make_unique<DwcDriver>(layout);
}

}  // namespace pmukit::pmu
