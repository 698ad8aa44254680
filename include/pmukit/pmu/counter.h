// pmukit -- counter arithmetic at any width: deltas across wraps, overflow flags, 64-bit totals.
//
// A w-bit counter read at intervals gives delta = (now - prev) mod 2^w, which is right as long as
// it wraps at most once between reads. When the hardware also reports an overflow flag, a flag with
// no visible wrap (now >= prev) proves at least one whole wrap was missed: the sample is marked
// lost rather than silently wrong.
#pragma once

#include <cstdint>

#include "pmukit/util/bits.h"

namespace pmukit::pmu {

class CounterTracker {
 public:
  explicit CounterTracker(unsigned width = 64) : mask_(low_mask(width)), width_(width) {}

  struct Update {
    std::uint64_t delta = 0;
    bool wrapped = false;  // the counter passed 2^width since the previous read
    bool lost = false;     // an overflow flag without a visible wrap: 2^width or more went unseen
  };

  void start(std::uint64_t raw) {
    prev_ = raw & mask_;
    total_ = 0;
    lost_ = false;
  }
  Update update(std::uint64_t raw, bool overflow_flag = false) {
    raw &= mask_;
    Update u;
    u.delta = (raw - prev_) & mask_;
    u.wrapped = raw < prev_;
    u.lost = overflow_flag && !u.wrapped;
    prev_ = raw;
    total_ += u.delta;
    lost_ = lost_ || u.lost;
    return u;
  }

  std::uint64_t total() const { return total_; }
  bool ever_lost() const { return lost_; }
  unsigned width() const { return width_; }
  std::uint64_t mask() const { return mask_; }

 private:
  // 32 bytes, two trackers a cache line: a sample touches every tracker.
  std::uint64_t mask_;
  std::uint64_t prev_ = 0;
  std::uint64_t total_ = 0;
  unsigned width_;
  bool lost_ = false;
};
static_assert(sizeof(CounterTracker) == 32);

}  // namespace pmukit::pmu
