// pmukit -- a session's config-space and MSR counters, read with as few system calls as the
// kernel interface allows, compiled with the flat MMIO pass (flat_sample.h):
// - the counters of one PCI device in one pread of the range that covers them (its config file
//   held open for the session); 64-bit counters in two dwords are read hi-lo-hi across two such
//   reads: the range again until no counter's high dword moved between them;
// - the MSR counters of one CPU in address order, one pread each: the msr device reads one
//   register per call, which is the cost the kernel interface leaves.
// Counters with an overflow flag, summed from several loads or sliced, stay on the guarded path.
#pragma once

#include <cstdint>
#include <vector>

#include "pmukit/pmu/counter.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/pmu/session.h"

namespace pmukit {
class MsrDevice;
class PciConfig;
}  // namespace pmukit

namespace pmukit::pmu {

class RegisterIo;

class BatchedSample {
 public:
  // Whether counter `c` of `plan` is read here: one config-space or MSR load, whole, no overflow flag,
  // no write before it (a DesignWare lane select keeps the guarded read, which makes it).
  static bool eligible(const SamplePlan& plan, const SamplePlan::Counter& c);

  // Empties the lists; every unit is then added in order, and compile() groups them.
  void clear();
  // Unit `u`'s counters, between begin_unit(u) and end_unit(). After compile() (a multiplexed
  // unit's next set): when they are the registers it had, only where their counts go changes;
  // otherwise its entries are replaced and the lists grouped again (sorting in place: nothing
  // allocated once they have been as long).
  void begin_unit(std::size_t u);
  // Adds an eligible counter of the unit begun.
  void add(RegisterIo& io, const Reg& load, CounterTracker& tracker, CounterValue& value, std::uint64_t multiplier);
  void end_unit();
  // Groups the counters by device (their covering ranges) and CPU (address order).
  void compile();
  void sample();
  std::size_t size() const { return config_.size() + msrs_.size(); }

 private:
  struct Target {
    CounterTracker* tracker;
    CounterValue* value;
    std::uint64_t multiplier;
  };
  struct ConfigCounter {
    PciConfig* device;
    std::uint32_t offset;
    bool wide;  // two dwords, read hi-lo-hi
    Target to;
    std::uint32_t unit, index;  // whose, and its place among the unit's (an order when keys tie)
  };
  struct Range {  // one device's counters: config_[first, first + count), bytes [offset, offset + len)
    PciConfig* device;
    std::uint32_t offset, len;
    std::size_t first, count;
    bool wide;
  };
  struct MsrCounter {
    MsrDevice* device;
    int cpu;
    std::uint32_t msr;
    Target to;
    std::uint32_t unit, index;
  };
  void read_range(const Range& r);
  bool same_registers() const;
  void group();

  std::vector<ConfigCounter> config_;
  std::vector<Range> ranges_;
  std::vector<MsrCounter> msrs_;
  std::vector<std::uint8_t> now_, again_;  // one range's bytes, twice for hi-lo-hi
  // Where each unit's counters are in config_ and msrs_, in the lists' order.
  std::vector<std::vector<std::uint32_t>> config_at_, msr_at_;
  std::size_t unit_ = 0;
  bool building_ = true;                   // between clear() and compile()
  std::vector<ConfigCounter> new_config_;  // the unit being added
  std::vector<MsrCounter> new_msrs_;
};

}  // namespace pmukit::pmu
