// pmukit -- one programming interface, a driver per PMU family.
//
// A driver programs events on one discovered unit through a WriteGuard: it declares every register
// it owns (saved before anything is written), refuses configurations the hardware cannot count,
// starts, stops, reads raw counter values, and restores every register it owns.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

struct Reading {
  std::uint64_t raw = 0;
  bool overflow = false;  // the hardware's overflow flag for this counter, where it has one
};

class UnitDriver {
 public:
  explicit UnitDriver(const discovery::PmuUnit& unit) : unit_(unit) {}
  virtual ~UnitDriver() = default;
  UnitDriver(const UnitDriver&) = delete;
  UnitDriver& operator=(const UnitDriver&) = delete;

  const discovery::PmuUnit& unit() const { return unit_; }

  // Every register of the unit a run may change, and the MMIO blocks that hold them.
  virtual std::vector<Reg> registers() const = 0;
  virtual std::vector<std::pair<std::uint64_t, std::uint64_t>> mmio_blocks() const { return {}; }
  // Why another agent seems to be using the unit (a kernel driver, another tool), or nullopt.
  virtual std::optional<std::string> busy(WriteGuard& guard) const = 0;
  // Checks `events` against the unit's counters and encodings without touching hardware; throws
  // UsageError naming the unit and the limit ("5 events but the box has 4 counters").
  virtual void check(const std::vector<events::EncodedEvent>& events) const = 0;
  // Programs the events (counters stopped), then starts and stops them all together.
  virtual void program(WriteGuard& guard, const std::vector<events::EncodedEvent>& events) = 0;
  virtual void start(WriteGuard& guard) = 0;
  virtual void stop(WriteGuard& guard) = 0;
  // One reading per programmed event, in program order, into `out` (resized by the driver; its
  // capacity is reused, so the sampling path does not allocate).
  virtual void read(WriteGuard& guard, std::vector<Reading>& out) = 0;
  // Counter width of programmed event i, and the factor the hardware count is multiplied by to
  // give the kernel's unit (DesignWare payload events count 16-byte units).
  virtual unsigned width(std::size_t event) const = 0;
  virtual std::uint64_t multiplier(std::size_t) const { return 1; }
  // Puts every register the driver owns back to its saved value.
  virtual void restore(WriteGuard& guard) = 0;

 protected:
  const discovery::PmuUnit& unit_;
};

// Why `unit` cannot be counted directly here -- its registers cannot be mapped or written, or it
// is busy -- or nullopt when it can. Writes nothing.
std::optional<std::string> direct_access_problem(Machine& machine, const UnitDriver& driver);

// The single dispatch point from a discovered family to its driver.
std::unique_ptr<UnitDriver> make_driver(const discovery::PmuUnit& unit, const platform::Database& db);

}  // namespace pmukit::pmu
