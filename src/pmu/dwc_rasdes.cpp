// pmukit -- DesignWare PCIe RAS DES driver: one time-based 64-bit counter and one 32-bit lane
// event counter per root port, in config space (Linux dwc_pcie_pmu.c sequences).
#include <fmt/format.h>

#include "drivers.h"
#include "pmukit/pmu/dwc_rasdes_regs.h"
#include "pmukit/util/bits.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

using discovery::DwcUnit;
using namespace dwc;

class DwcDriver : public UnitDriver {
 public:
  explicit DwcDriver(const discovery::PmuUnit& unit) : UnitDriver(unit), u_(*unit.as<DwcUnit>()) {}

  std::vector<Reg> registers() const override {
    return {reg32(EVENT_CNT_CTL), reg32(EVENT_CNT_DATA), reg32(TIME_BASED_ANAL_CTL), time_data()};
  }

  std::optional<std::string> busy(WriteGuard& g) const override {
    if (TimeCtlEnable::get(g.read(reg32(TIME_BASED_ANAL_CTL)))) return "the time-based analysis timer is running";
    if (EventCntEnable::get(g.read(reg32(EVENT_CNT_CTL))) == kPerEventOn) return "the lane event counter is enabled";
    return std::nullopt;
  }

  void check(const std::vector<events::EncodedEvent>& events) const override {
    unsigned time = 0, lane = 0;
    for (const auto& e : events) {
      unsigned type = static_cast<unsigned>(bits(e.config, 19, 16));
      if (type == kTypeTimeBased)
        ++time;
      else if (type == kTypeLane)
        ++lane;
      else
        throw UsageError(fmt::format("{}: event type {} is neither 0 (time-based) nor 1 (lane)", unit_.name, type));
    }
    if (time > 1 || lane > 1)
      throw UsageError(fmt::format("{}: a root port has one time-based and one lane event counter; {} time-based and "
                                   "{} lane events asked (use --backend perf, which multiplexes)",
                                   unit_.name, time, lane));
  }

  void program(WriteGuard& g, const std::vector<events::EncodedEvent>& events) override {
    check(events);
    slots_.clear();
    for (const auto& e : events) {
      std::uint64_t id = bits(e.config, 15, 0);
      if (bits(e.config, 19, 16) == kTypeTimeBased) {
        time_ctl_ = TimeCtlReportSelect::put(id) | TimeCtlDuration::put(0);  // manual duration
        g.write(reg32(TIME_BASED_ANAL_CTL), time_ctl_);
        slots_.push_back({true, id >= kPayloadFirst && id <= kPayloadLast ? kPayloadUnit : 1});
      } else {
        lane_ctl_ = EventCntSelect::put(id) | EventCntLane::put(bits(e.config, 27, 20));
        // Program with the counter off and cleared, then turn it on (dwc_pcie_pmu_lane_event_enable).
        g.write(reg32(EVENT_CNT_CTL),
                lane_ctl_ | EventCntEnable::put(kPerEventOff) | EventCntClear::put(kPerEventClear));
        slots_.push_back({false, 1});
      }
    }
    g.barrier();
  }

  void start(WriteGuard& g) override {
    for (const auto& s : slots_) {
      if (s.time)
        g.write(reg32(TIME_BASED_ANAL_CTL), time_ctl_ | TimeCtlEnable::put(1));  // clears the data
      else
        g.write(reg32(EVENT_CNT_CTL), lane_ctl_ | EventCntEnable::put(kPerEventOn));
    }
    g.barrier();
  }

  void stop(WriteGuard& g) override {
    for (const auto& s : slots_) {
      if (s.time)
        g.write(reg32(TIME_BASED_ANAL_CTL), time_ctl_);
      else
        g.write(reg32(EVENT_CNT_CTL), lane_ctl_ | EventCntEnable::put(kPerEventOff));
    }
    g.barrier();
  }

  void read(WriteGuard& g, std::vector<Reading>& out) override {
    out.resize(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i)
      out[i] = {g.read(slots_[i].time ? time_data() : reg32(EVENT_CNT_DATA)), false};
  }

  unsigned width(std::size_t i) const override { return slots_.at(i).time ? 64 : 32; }
  std::uint64_t multiplier(std::size_t i) const override { return slots_.at(i).multiplier; }

  void restore(WriteGuard& g) override {
    // The data registers are read-only: the lane counter is cleared with its clear bit, and the
    // time-based one by starting (which clears it) and stopping an empty measurement.
    std::uint64_t lane = g.original(reg32(EVENT_CNT_CTL));
    g.write(reg32(EVENT_CNT_CTL),
            (lane & ~EventCntEnable::mask) | EventCntEnable::put(kPerEventOff) | EventCntClear::put(kPerEventClear));
    std::uint64_t time = g.original(reg32(TIME_BASED_ANAL_CTL));
    g.write(reg32(TIME_BASED_ANAL_CTL), time & ~TimeCtlEnable::mask);  // stopped, if restore comes without stop
    g.barrier();
    g.write(reg32(TIME_BASED_ANAL_CTL), time | TimeCtlEnable::put(1));
    g.barrier();
    g.write(reg32(TIME_BASED_ANAL_CTL), time);
    g.write(reg32(EVENT_CNT_CTL), lane);
    g.barrier();
  }

 private:
  struct Slot {
    bool time;
    std::uint64_t multiplier;
  };
  Reg reg32(unsigned off) const { return pci32(u_.root_port, u_.vsec_offset + off); }
  Reg time_data() const { return pci64(u_.root_port, u_.vsec_offset + TIME_BASED_ANAL_DATA_LOW); }

  const DwcUnit& u_;
  std::uint64_t time_ctl_ = 0, lane_ctl_ = 0;
  std::vector<Slot> slots_;
};

}  // namespace

std::unique_ptr<UnitDriver> make_dwc_rasdes(const discovery::PmuUnit& unit) {
  return std::make_unique<DwcDriver>(unit);
}

}  // namespace pmukit::pmu
