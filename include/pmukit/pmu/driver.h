// pmukit -- one programming interface, a driver per PMU family.
//
// A driver programs events on one discovered unit through its layout and a WriteGuard. It says
// whether the unit is in use and whether events fit its counters, and it writes in phases: the
// session runs one phase on every unit, then settles once (pmu/settle.h), then the next. Reading
// is not the driver's: configure() says where the counts are (a SamplePlan) and the session reads
// them. So a session can reprogram a unit mid-run (time-division multiplexing) with the same
// saved registers and mappings, and a sampling loop can read every counter from one flat list.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "pmukit/pmu/journal.h"
#include "pmukit/pmu/unit_layout.h"
#include "pmukit/pmu/verdict.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

// Where the counts of the programmed events are: a flat list of counter loads, the overflow
// status registers read before them, for each event which loads it sums, and the write that
// selects which counter a shared data register shows, when one must come first.
struct SamplePlan {
  // A write made before a counter's loads, so that they show it: DesignWare's EVENT_CNT_CTL
  // selects the lane event EVENT_CNT_DATA shows. The register is the unit's own (through the
  // guard, traced, restored); under a simulator it is settled before the loads.
  struct Select {
    Reg reg;
    std::uint64_t value = 0;
  };
  struct Status {
    Reg reg;
    std::uint32_t mask = 0;  // the bits of our counters; those seen set are written back to clear them
  };
  struct Counter {
    std::uint32_t first = 0, count = 1;  // loads[first, first + count) summed
    int status = -1;                     // index in `status` of its overflow flag, -1: none
    std::uint32_t bit = 0;
    unsigned width = 64;           // counter width in bits (wrap arithmetic)
    std::uint64_t multiplier = 1;  // hardware count x multiplier = the kernel's unit
    // Starting the counter clears it (DesignWare's time-based counter, Tegra410 C2C counters):
    // counts start from 0 whatever it held when the baseline was read (a reprogrammed unit's
    // previous event, or another tool's count).
    bool zero_at_start = false;
    int select = -1;  // index in `selects` of the write that comes before its loads, -1: none
  };
  // The part of a load that counts, and its weight: ((value >> shift) & low `bits`) << scale. A
  // CMN event is four 16-bit DTM counters in one register plus the DTC counter their carries feed.
  struct Slice {
    std::uint8_t shift = 0, bits = 64, scale = 0;
    std::uint64_t apply(std::uint64_t v) const {
      v >>= shift;
      if (bits < 64) v &= (1ull << bits) - 1;
      return v << scale;
    }
  };
  std::vector<Reg> loads;
  std::vector<Slice> slices;  // one per load
  std::vector<Status> status;
  std::vector<Counter> counters;  // one per programmed event, in program order
  std::vector<Select> selects;

  void clear() { loads.clear(), slices.clear(), status.clear(), counters.clear(), selects.clear(); }
  // Adds an event read from `regs` (summed); returns its index.
  std::size_t add(const std::vector<Reg>& regs, unsigned width, std::uint64_t multiplier = 1);
  // The same for an event read from one register (no list made: a multiplexed unit's next set is
  // configured without allocating once the plan has held as many).
  std::size_t add(const Reg& reg, unsigned width, std::uint64_t multiplier = 1);
  // The same, each load taking its slice (`parts` and `regs` of equal length).
  std::size_t add_sliced(const std::vector<Reg>& regs, const std::vector<Slice>& parts, unsigned width);
};

// Restoring runs in three phases, a settle between each: stop counting; clear counters that are
// not writable by the effect that clears them; put every saved value back.
enum class RestorePhase { Quiesce, Clear, PutBack };
constexpr RestorePhase kRestorePhases[] = {RestorePhase::Quiesce, RestorePhase::Clear, RestorePhase::PutBack};

// What a driver's configure() works out from a set of events before it writes (which counters
// they take, the values its registers get), made once and with no I/O by UnitDriver::place(): a
// multiplexed unit's sets are placed when the session plans its turns, so that programming a set
// again at its turn allocates nothing. Only the driver that made it reads it.
class Placement {
 public:
  virtual ~Placement() = default;
};

class UnitDriver {
 public:
  explicit UnitDriver(const UnitLayout& layout) : layout_(layout), unit_(*layout.unit) {}
  virtual ~UnitDriver() = default;
  UnitDriver(const UnitDriver&) = delete;
  UnitDriver& operator=(const UnitDriver&) = delete;

  const discovery::PmuUnit& unit() const { return unit_; }
  const UnitLayout& layout() const { return layout_; }

  // Another agent's counting, as the register that shows it, or nullopt. Reads (or takes the values
  // the guard saved just before: WriteGuard::read_saved), never writes.
  virtual std::optional<Busy> busy(WriteGuard& guard) const = 0;
  // Whether the events fit the unit's counters and encodings; nullopt when they do. No I/O.
  virtual std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const = 0;
  // Events of a {...} group (group[i], -1: alone) that leave a filter unset take their leader's,
  // where the unit's Linux driver does so; their encodings change in place. No I/O.
  virtual void inherit_group_filters(std::vector<syntax::EncodedEvent>& events, const std::vector<int>& group) const {
    (void)events;
    (void)group;
  }
  // Programming, phase 1: the unit stopped and its counters cleared.
  virtual void reset(WriteGuard& guard) = 0;
  // Phase 2 (after a settle): the events' controls, and where their counts are read.
  virtual void configure(WriteGuard& guard, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) = 0;
  // The placement of `events` (which fit), or nullptr where configure() needs none: it allocates
  // nothing once the plan and the driver's own lists have held as many events. No I/O.
  virtual std::shared_ptr<const Placement> place(const std::vector<syntax::EncodedEvent>& events) const {
    (void)events;
    return nullptr;
  }
  // configure() of `events` with `placed`, what place(events) made (nullptr: configure(events)).
  // The same writes in the same order; the driver may keep `placed` until the next reset().
  virtual void configure_placed(WriteGuard& guard, const std::vector<syntax::EncodedEvent>& events,
                                const std::shared_ptr<const Placement>& placed, SamplePlan& plan) {
    (void)placed;
    configure(guard, events, plan);
  }
  // Every programmed counter together; then stopped together.
  virtual void start(WriteGuard& guard) = 0;
  virtual void stop(WriteGuard& guard) = 0;
  // One phase of putting the unit back as the guard saved it.
  virtual void restore(WriteGuard& guard, RestorePhase phase) = 0;
  // The writes that undo what programming `events` turns on beyond what the unit's saved values
  // say, in the order restore() makes them (DesignWare: each lane event off and cleared through
  // the command register EVENT_CNT_CTL). The session journals them before configure() (pmu/
  // journal.h), so that recovery after a kill makes them too. No I/O; none for most families.
  virtual std::vector<JournalEntry> undo(const std::vector<syntax::EncodedEvent>& events) const {
    (void)events;
    return {};
  }
  // Recovery after a killed run (pmu/journal.h): a fresh driver takes from the registers whatever
  // restore() needs to know of the programming it did not do itself. Reads, never writes.
  virtual void adopt(WriteGuard& guard) { (void)guard; }

 protected:
  const UnitLayout& layout_;
  const discovery::PmuUnit& unit_;
};

// The unit's driver, made by its family (family_driver.h). Throws Error (the NoDriver reason) when
// the family cannot program the unit.
std::unique_ptr<UnitDriver> make_driver(const UnitLayout& layout, const platform::Database& db);

}  // namespace pmukit::pmu
