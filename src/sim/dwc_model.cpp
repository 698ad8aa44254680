// pmukit -- simulated DesignWare RAS DES counters: the lane event counter (clear bits, per-event
// enable) and the time-based analysis counter (cleared when a measurement starts).
#include "pmukit/regs/designware.h"
#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

namespace {

using namespace regs::dwc;
using pmu::Role;

class DwcModel : public UnitModel {
 public:
  DwcModel(const pmu::UnitLayout& layout, const Rates& rates)
      : lane_ctl_(layout.at(Role::LaneControl)), lane_data_(layout.at(Role::LaneCounter)),
        time_ctl_(layout.at(Role::TimeControl)), time_data_(layout.at(Role::TimeCounter)), name_(layout.unit->name),
        kind_(layout.unit->pmu_kind), rates_(rates) {}

  void step(Registers& io, std::uint64_t dt_ns) override {
    std::uint64_t lane = io.read(lane_ctl_);
    if (EventCntClear::get(lane) == kPerEventClear) {
      io.write(lane_data_, 0);
      lane &= ~EventCntClear::mask;
      io.write(lane_ctl_, lane);
      lane_acc_.reset();
    }
    if (EventCntEnable::get(lane) == kPerEventOn && dt_ns) {
      std::uint64_t inc = lane_acc_.advance(rates_.lookup(name_, kind_, EventCntSelect::get(lane)), dt_ns);
      io.write(lane_data_, (io.read(lane_data_) + inc) & 0xffffffffull);
    }
    std::uint64_t time = io.read(time_ctl_);
    bool running = TimeCtlEnable::get(time) != 0;
    if (running && !was_running_) {  // a measurement starts: the data register clears
      io.write(time_data_, 0);
      time_acc_.reset();
    }
    was_running_ = running;
    if (running && dt_ns) {
      std::uint64_t inc = time_acc_.advance(rates_.lookup(name_, kind_, TimeCtlReportSelect::get(time)), dt_ns);
      io.write(time_data_, io.read(time_data_) + inc);
    }
  }

 private:
  const pmu::Reg &lane_ctl_, &lane_data_, &time_ctl_, &time_data_;
  std::string name_, kind_;
  const Rates& rates_;
  Accumulator lane_acc_, time_acc_;
  bool was_running_ = false;
};

}  // namespace

std::unique_ptr<UnitModel> make_dwc_model(const pmu::UnitLayout& layout, const Rates& rates) {
  return std::make_unique<DwcModel>(layout, rates);
}

}  // namespace pmukit::sim
