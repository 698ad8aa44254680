// pmukit -- a session's common counters as one flat array, compiled when the plans are made: for
// each, the address of its load inside the mapped window (checked once), its tracker and where its
// value goes. A sample is one pass per load kind -- 64-bit loads, 32-bit loads, hi-lo-hi where
// the block has no atomic 64-bit access -- with the tracker's wrap arithmetic (a mask: no branch
// on the width) fused in: no register lookup, no virtual call, no allocation per counter.
//
// Overflow status banks in MMIO (CoreSight PMOVSCLR) are part of the pass: every bank is loaded
// before the counters, each counter takes its flag by index and bit (index 0 is a bank that is
// never set, for counters without one: no branch), and the bits seen set are written back to clear
// them through the guard after the counters, as DirectSession::read does.
//
// Everything else keeps the session's guarded path (DirectSession::read): config-space and MSR
// loads (batched_sample.h), counters summed from several loads or slices (CMN), and any counter
// the session must write something for before reading it.
#pragma once

#include <cstdint>
#include <vector>

#include "pmukit/pmu/counter.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/session.h"

namespace pmukit {
class RegisterWindow;
}

namespace pmukit::pmu {

// One sample of a counter read outside the guarded path: the tracker's update (deltas modulo
// 2^width by a mask; an overflow flag without a visible wrap is a lost one) and the value in the
// kernel's unit.
inline void record(CounterTracker& t, CounterValue& v, std::uint64_t multiplier, std::uint64_t raw,
                   bool overflow = false) {
  const auto d = t.update(raw, overflow);
  v.delta = d.delta * multiplier;
  v.total = t.total() * multiplier;
  v.wrapped = d.wrapped;
  v.lost = d.lost;
  v.hardware_delta = d.delta;
}

class FlatSample {
 public:
  // Whether counter `c` of `plan` can be read here: one MMIO load, whole (no slice). Its overflow
  // flag, if any, must be in a status bank added here. (A counter the session must write
  // something for before reading it is not: add that here.)
  static bool eligible(const SamplePlan& plan, const SamplePlan::Counter& c);
  // Whether an overflow status bank can be read here: a 32-bit MMIO register.
  static bool eligible(const SamplePlan::Status& status);

  FlatSample() { clear(); }
  void clear();
  // Unit `u`'s counters and banks, between begin_unit(u) and end_unit(): the first time, u is the
  // next unit; later, its entries are replaced where they are and no other unit's are touched (a
  // multiplexed unit's next set). Each unit keeps room for the most it ever had: when it has fewer,
  // the rest of its room loads a constant zero into a tracker nobody reads, so a unit that takes
  // turns with sets of different sizes moves no other entry and, once every set has been on,
  // allocates nothing.
  void begin_unit(std::size_t u);
  void end_unit();
  // Adds a status bank in `window`; returns its index for add().
  std::uint32_t add_status(const RegisterWindow& window, const SamplePlan::Status& status);
  // Adds an eligible counter whose load `load` lies in `window`, with its overflow flag at `bit`
  // of status bank `status` (0: none).
  void add(const RegisterWindow& window, const Reg& load, CounterTracker& tracker, CounterValue& value,
           std::uint64_t multiplier, std::uint32_t status = 0, std::uint32_t bit = 0);
  // Loads every status bank and counter, updates each tracker and writes each value, then clears
  // the overflow bits seen through `guard`. Throws Error naming the register when a hi-lo-hi
  // counter's high dword never settles.
  void sample(WriteGuard& guard);
  std::size_t size() const { return one64_.size() + one32_.size() + hilohi_.size(); }

 private:
  template <class P>
  struct Entry {
    P at;
    CounterTracker* tracker;
    CounterValue* value;
    std::uint64_t multiplier;
    std::uint32_t status, bit;
  };
  struct Status {
    const volatile std::uint32_t* at;
    std::uint32_t mask;  // the bits of our counters
    std::uint32_t seen;  // of the current sample
    Reg reg;             // written back to clear what was seen
  };
  bool overflow(std::uint32_t status, std::uint32_t bit) const { return status_[status].seen >> bit & 1; }
  // Where a unit's entries are: per load kind (64-bit, 32-bit, hi-lo-hi), from `begin`, `room` of them.
  struct Segment {
    std::size_t begin[3] = {}, room[3] = {};
  };
  template <class E>
  void place(std::vector<E>& all, std::vector<E>& pending, std::size_t kind, const E& dead);

  std::vector<Status> status_;
  std::vector<Entry<const volatile std::uint64_t*>> one64_;
  std::vector<Entry<const volatile std::uint32_t*>> one32_, hilohi_;
  std::vector<std::uint64_t> hilohi_phys_;  // for the message when one never settles
  std::vector<Segment> units_;
  std::vector<std::vector<std::uint32_t>> banks_;  // banks_[u]: unit u's status banks
  // The unit being added: its entries until end_unit() places them, and how many banks it has.
  std::size_t unit_ = 0, unit_banks_ = 0;
  std::vector<Entry<const volatile std::uint64_t*>> new64_;
  std::vector<Entry<const volatile std::uint32_t*>> new32_, new_hilohi_;
  std::vector<std::uint64_t> new_phys_;
  CounterTracker dead_tracker_{64};  // what the unused room of a unit counts into
  CounterValue dead_value_;
};

}  // namespace pmukit::pmu
