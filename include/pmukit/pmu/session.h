// pmukit -- a direct counting session: adopts a preflight (its units' locks, every unit's
// mappings, saved registers and driver), programs the events phase by phase, samples them, and
// restores everything -- on normal exit, on error (the destructor), and after a signal (the
// caller's loop ends and the destructor runs). No register outside a unit's layout is written.
// Before its first write it journals every original value (pmu/journal.h), so that a SIGKILL,
// which no restore survives, is recovered by the next run; a complete restore removes the journal.
// Once the journal is written the machine lock goes: another tool may take other units meanwhile.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/counter.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/pmu/settle.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit {
class Machine;
class MachineLock;
}  // namespace pmukit
namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

class Preflight;
class FlatSample;
class BatchedSample;

struct UnitEvents {
  const discovery::PmuUnit* unit = nullptr;
  std::vector<syntax::EncodedEvent> events;
};

struct SessionOptions {
  bool force = false;                         // take units that look busy
  Settle* settle = nullptr;                   // waited on between phases (pmu-sim); nullptr on hardware
  std::vector<WriteRecord>* trace = nullptr;  // every write the session makes, when set
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
  // Adopts `preflight` (whose verdicts it reuses) and programs the work. Throws Error (busy unit,
  // no access, lock held) or UsageError (events that do not fit) before any register is written.
  DirectSession(std::unique_ptr<Preflight> preflight, std::vector<UnitEvents> work, SessionOptions options);
  // The same with a preflight of its own.
  DirectSession(Machine& machine, std::vector<UnitEvents> work, const platform::Database& db, SessionOptions options);
  ~DirectSession();  // restores; never throws
  DirectSession(const DirectSession&) = delete;
  DirectSession& operator=(const DirectSession&) = delete;

  void start();  // every unit, back to back
  void stop();
  // Reads every counter; result[u][e] is event e of work unit u. The result lives until the next
  // sample(): its storage is reused so that sampling does not allocate.
  const std::vector<std::vector<CounterValue>>& sample();
  // Where sample() puts its values: result[u][e] stays where it is until unit u is programmed
  // again (reprogram(), turn()), so a reader may keep pointers into it between those.
  const std::vector<std::vector<CounterValue>>& values() const { return values_; }
  // Replaces the events of work unit u while the run goes on (time-division multiplexing): the
  // unit is stopped, reprogrammed and started again, with the same saved registers and mappings.
  // Its counts start from zero; the other units count on. Throws UsageError when they do not fit.
  void reprogram(std::size_t u, std::vector<syntax::EncodedEvent> events);
  // The sets of events unit u takes turns with (time-division multiplexing), each checked now:
  // throws UsageError when one does not fit. Writes nothing.
  void plan_turns(std::size_t u, std::vector<std::vector<syntax::EncodedEvent>> sets);
  // reprogram(u, set t of plan_turns) without checking, copying or placing it again: once every
  // set has been on the counters, a turn allocates nothing (tests/alloc).
  void turn(std::size_t u, std::size_t t);
  // Puts every saved register back. Idempotent; the destructor calls it.
  void restore();
  // Problems met while restoring (each names the register); empty when all went back.
  const std::vector<std::string>& restore_errors() const { return restore_errors_; }
  std::size_t register_writes() const;
  // Every counter read of one sample, flat: what a sampling loop at the one-load floor walks.
  const std::vector<SamplePlan>& plans() const { return plans_; }
  // The longest time between two sample()s for which every counter provably wraps at most once:
  // counters narrower than 48 bits at the highest rate a PMU event plausibly reaches (4 counts per
  // ns: a 4 GHz clock, or a byte counter at 4 GB/s per unit). Wider counters need no bound, so
  // this is capped at 60 s for them.
  std::uint64_t max_read_period_ns() const;
  static constexpr std::uint64_t kMaxCountsPerNs = 4;
  static constexpr std::uint64_t kLongestReadPeriodNs = 60'000'000'000ull;

 private:
  void admit();
  void track(std::size_t u);
  void settle();
  void compile_flat();
  void compile_unit(std::size_t u);
  void compile_counters(std::size_t u);
  void program(std::size_t u, const std::vector<syntax::EncodedEvent>& events, const std::vector<JournalEntry>& undo,
               const std::shared_ptr<const Placement>& placed);
  void read(std::size_t u, bool guarded_only);
  void baseline(std::size_t u);
  void restore_phase(RestorePhase phase, std::vector<bool>& failed);
  void write_journal();
  std::vector<const discovery::PmuUnit*> units() const;
  bool journal_undo(const std::vector<JournalEntry>& undo);

  std::unique_ptr<Preflight> preflight_;
  SessionOptions options_;
  std::vector<UnitEvents> work_;
  // A multiplexed unit's sets, checked once, with the undo writes each needs journalled and the
  // driver's placement of it (pmu/driver.h; nullptr where the driver needs none).
  struct Turn {
    std::vector<syntax::EncodedEvent> events;
    std::vector<JournalEntry> undo;
    std::shared_ptr<const Placement> placed;
  };
  std::vector<std::vector<Turn>> turns_;
  std::vector<UnitDriver*> drivers_;
  std::vector<SamplePlan> plans_;
  std::vector<std::vector<CounterTracker>> trackers_;
  std::vector<std::vector<std::uint64_t>> raw_;
  std::vector<std::vector<bool>> overflow_;
  std::vector<std::vector<CounterValue>> values_;
  // The common MMIO counters, read in one flat pass (src/pmu/flat_sample.h), config-space and
  // MSR counters batched by device and CPU (batched_sample.h); the others per unit through the
  // guard: guarded_[u][c] says which, guarded_unit_[u] whether unit u has any (or overflow status
  // to read and clear).
  std::unique_ptr<FlatSample> flat_;
  std::unique_ptr<BatchedSample> batched_;
  std::vector<std::vector<char>> guarded_;
  std::vector<char> guarded_unit_;
  std::size_t settled_writes_ = 0;  // guard writes when the session last settled
  bool programmed_ = false, restored_ = false, journaled_ = false;
  std::vector<std::string> restore_errors_;
  Journal journal_;  // what is on disk while the session runs
  std::filesystem::path journal_path_;
};

}  // namespace pmukit::pmu
