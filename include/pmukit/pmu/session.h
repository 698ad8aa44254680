// pmukit -- a direct counting session: takes the machine lock, checks every unit is idle, saves
// every register it may touch, programs the events, samples them, and restores everything --
// on normal exit, on error (the destructor), and after a signal (the caller's loop ends and the
// destructor runs). No register outside a discovered unit's own set is ever written.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/counter.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit {
class Machine;
class MachineLock;
}  // namespace pmukit
namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

struct UnitEvents {
  const discovery::PmuUnit* unit = nullptr;
  std::vector<events::EncodedEvent> events;
};

struct SessionOptions {
  bool force = false;             // take units that look busy
  std::function<void()> barrier;  // see RegisterIo::barrier (pmu-sim); may be empty
};

struct CounterValue {
  std::uint64_t delta = 0;  // since the previous sample, in the kernel's unit (multiplier applied)
  std::uint64_t total = 0;  // since start
  bool wrapped = false;
  bool lost = false;                 // the hardware says more than one wrap happened since the last read
  std::uint64_t hardware_delta = 0;  // delta in the hardware's own unit (before the multiplier)
};

class DirectSession {
 public:
  // Throws Error (busy unit, no access, lock held) or UsageError (events that do not fit) before
  // any register is written.
  DirectSession(Machine& machine, std::vector<UnitEvents> work, const platform::Database& db, SessionOptions options);
  ~DirectSession();  // restores; never throws
  DirectSession(const DirectSession&) = delete;
  DirectSession& operator=(const DirectSession&) = delete;

  void start();  // every unit, back to back
  void stop();
  // Reads every counter; result[u][e] is event e of work unit u. The result lives until the next
  // sample(): its storage is reused so that sampling does not allocate.
  const std::vector<std::vector<CounterValue>>& sample();
  // Puts every saved register back. Idempotent; the destructor calls it.
  void restore();
  // Problems met while restoring (each names the register); empty when all went back.
  const std::vector<std::string>& restore_errors() const { return restore_errors_; }
  std::size_t register_writes() const;
  // The longest time between two sample()s for which every counter provably wraps at most once:
  // a w-bit counter is read at least every 2^w / kMaxCountsPerNs / 2 ns (48-bit and wider: the
  // kernel's own 60 s uncore poll). A counter read less often than this may wrap twice unseen --
  // the DesignWare lane counters are 32 bits with no overflow flag at all.
  std::uint64_t max_read_period_ns() const;
  // The fastest an uncore counter is assumed to advance: one count per cycle at 4 GHz. Occupancy
  // events that add more per cycle live in 48-bit counters, where the margin is hours.
  static constexpr std::uint64_t kMaxCountsPerNs = 4;
  static constexpr std::uint64_t kLongestReadPeriodNs = 60'000'000'000ull;

 private:
  std::unique_ptr<MachineLock> lock_;
  std::unique_ptr<RegisterIo> io_;
  std::unique_ptr<WriteGuard> guard_;
  std::vector<UnitEvents> work_;
  std::vector<std::unique_ptr<UnitDriver>> drivers_;
  std::vector<std::vector<CounterTracker>> trackers_;
  std::vector<std::vector<Reading>> readings_;
  std::vector<std::vector<CounterValue>> values_;
  bool programmed_ = false, restored_ = false;
  std::vector<std::string> restore_errors_;
};

}  // namespace pmukit::pmu
