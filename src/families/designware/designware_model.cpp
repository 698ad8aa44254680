// pmukit -- simulated DesignWare RAS DES counters: a counter per (lane event, lane) of its group's
// width (4, 8 or 32 bits, wrapping there; regs::dwc::lane_counter_width), each
// with its own per-event enable and clear, counting side by side (Linux dwc_pcie_pmu.c since
// 71396cfac97d counts group 6/7 events in parallel), EVENT_CNT_DATA showing the one EVENT_CNT_CTL
// selects; and the time-based analysis counter (cleared when a measurement starts).
//
// EVENT_CNT_CTL is a command register: every write acts on the event it selects. The session
// settles after each write to it (WriteGuard::commands), so each step sees one command.
#include <map>

#include <fmt/format.h>

#include "designware_model.h"
#include "pmukit/families/designware/designware_layout.h"
#include "pmukit/families/designware/designware_regs.h"
#include "pmukit/util/text.h"

namespace pmukit::sim {

namespace {

using namespace regs::dwc;
using Role = pmu::DwcRole;

struct LaneCounter {
  std::uint64_t value = 0;
  bool on = false;
  Accumulator acc;
};

class DwcModel : public UnitModel {
 public:
  DwcModel(const pmu::UnitLayout& layout, const Rates& rates)
      : lane_ctl_(layout.at(Role::LaneControl)), lane_data_(layout.at(Role::LaneCounter)),
        time_ctl_(layout.at(Role::TimeControl)), time_data_(layout.at(Role::TimeCounter)), name_(layout.unit->name),
        kind_(layout.unit->pmu_kind), rates_(rates) {}

  void step(Registers& io, std::uint64_t dt_ns) override {
    step_lanes(io, dt_ns);
    const auto time = read_as<TimeCtl>(io, time_ctl_);
    bool running = TimeCtl::Enable::get(time) != 0;
    if (running && !was_running_) {  // a measurement starts: the data register clears
      io.write(time_data_, 0);
      time_acc_.reset();
    }
    was_running_ = running;
    if (running && dt_ns) {
      std::uint64_t inc = time_acc_.advance(rates_.lookup(name_, kind_, TimeCtl::ReportSelect::get(time)), dt_ns);
      io.write(time_data_, io.read(time_data_) + inc);
    }
  }

 private:
  // The command in EVENT_CNT_CTL on the counter it selects, every enabled counter advanced, and
  // the selected one shown in EVENT_CNT_DATA.
  void step_lanes(Registers& io, std::uint64_t dt_ns) {
    const auto ctl = read_as<EventCntCtl>(io, lane_ctl_);
    const std::uint64_t key = ctl.raw & (EventCntCtl::Select::mask | EventCntCtl::Lane::mask);
    if (!seeded_) {  // what the data register holds is the count of the event selected now
      lanes_[key].value = io.read(lane_data_);
      seeded_ = true;
    }
    LaneCounter& selected = lanes_[key];
    if (EventCntCtl::Enable::get(ctl) == kPerEventOn) selected.on = true;
    if (EventCntCtl::Enable::get(ctl) == kPerEventOff) selected.on = false;
    if (EventCntCtl::Clear::get(ctl) == kPerEventClear) {  // done once: the clear bits read back 0
      selected.value = 0;
      io.write(lane_ctl_, EventCntCtl::Clear::clear(ctl).raw);
    }
    // The events happen whether or not they are counted (the accumulator keeps their phase across
    // a counter that is off, cleared or multiplexed away); an enabled counter adds them.
    if (dt_ns)
      for (auto& [k, c] : lanes_) {
        const RegValue<LaneEventId> id{EventCntCtl::Select::get(RegValue<EventCntCtl>{k})};
        const std::uint64_t events = c.acc.advance(lane_rate(id), dt_ns);
        if (c.on) c.value = (c.value + events) & low_mask(lane_counter_width(id));
      }
    io.write(lane_data_, selected.value);
  }
  // A rule for the event, else its group's ("lane_group0": the error counters count rarely).
  Rate lane_rate(RegValue<LaneEventId> id) const {
    const std::string code = hex(id.raw);
    if (rates_.names(name_, kind_, code)) return rates_.lookup(name_, kind_, code);
    return rates_.lookup(name_, kind_, fmt::format("lane_group{}", LaneEventId::Group::get(id)));
  }

  const pmu::Reg &lane_ctl_, &lane_data_, &time_ctl_, &time_data_;
  std::string name_, kind_;
  const Rates& rates_;
  std::map<std::uint64_t, LaneCounter> lanes_;  // by EVENT_CNT_CTL select and lane fields
  bool seeded_ = false;
  Accumulator time_acc_;
  bool was_running_ = false;
};

}  // namespace

std::unique_ptr<UnitModel> make_dwc_model(const pmu::UnitLayout& layout, const Rates& rates) {
  return std::make_unique<DwcModel>(layout, rates);
}

}  // namespace pmukit::sim
