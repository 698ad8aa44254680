// pmukit -- simulated DesignWare RAS DES counters: the lane event counter (clear bits, per-event
// enable) and the time-based analysis counter (cleared when a measurement starts).
#include "pmukit/pmu/dwc_rasdes_regs.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

namespace {

using discovery::DwcUnit;
using namespace pmu::dwc;

class DwcModel : public UnitModel {
 public:
  DwcModel(const discovery::PmuUnit& unit, const Rates& rates)
      : u_(*unit.as<DwcUnit>()), kind_(unit.pmu_kind), rates_(rates) {}

  void step(pmu::RegisterIo& io, std::uint64_t dt_ns) override {
    std::uint64_t lane = io.read(reg(EVENT_CNT_CTL));
    if (EventCntClear::get(lane) == kPerEventClear) {
      io.write(reg(EVENT_CNT_DATA), 0);
      lane &= ~EventCntClear::mask;
      io.write(reg(EVENT_CNT_CTL), lane);
      lane_acc_.reset();
    }
    if (EventCntEnable::get(lane) == kPerEventOn && dt_ns) {
      std::uint64_t inc = lane_acc_.advance(rates_.rate(kind_, EventCntSelect::get(lane)), dt_ns);
      io.write(reg(EVENT_CNT_DATA), (io.read(reg(EVENT_CNT_DATA)) + inc) & 0xffffffffull);
    }
    std::uint64_t time = io.read(reg(TIME_BASED_ANAL_CTL));
    bool running = TimeCtlEnable::get(time) != 0;
    if (running && !was_running_) {  // a measurement starts: the data register clears
      io.write(time_data(), 0);
      time_acc_.reset();
    }
    was_running_ = running;
    if (running && dt_ns) {
      std::uint64_t inc = time_acc_.advance(rates_.rate(kind_, TimeCtlReportSelect::get(time)), dt_ns);
      io.write(time_data(), io.read(time_data()) + inc);
    }
  }

 private:
  pmu::Reg reg(unsigned off) const { return pmu::pci32(u_.root_port, u_.vsec_offset + off); }
  pmu::Reg time_data() const { return pmu::pci64(u_.root_port, u_.vsec_offset + TIME_BASED_ANAL_DATA_LOW); }

  const DwcUnit& u_;
  std::string kind_;
  const Rates& rates_;
  Accumulator lane_acc_, time_acc_;
  bool was_running_ = false;
};

}  // namespace

std::unique_ptr<UnitModel> make_dwc_model(const discovery::PmuUnit& unit, const Rates& rates) {
  return std::make_unique<DwcModel>(unit, rates);
}

}  // namespace pmukit::sim
