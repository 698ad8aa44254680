// pmukit -- the preflight: can each unit be counted directly here, and with these events?
//
// Computed once per unit and cached. For each unit it builds the layout and the driver once, maps
// each MMIO block once, checks the MSR and config-space files can be written, saves every
// register the unit owns once, and asks the driver whether another agent is counting on it. The
// DirectSession that then programs the units adopts all of it -- the mappings, the saved values,
// the drivers -- so a run maps each block and saves each register exactly once.
//
// A unit's lock (access/machine_lock.h) is taken before its first register is saved, and held by
// whatever adopts the preflight: original values are never saved while another tool may be
// programming that unit. The units are taken under the machine lock, which the session that
// adopts the preflight lets go of once its journal is written (release_machine_lock).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pmukit/pmu/driver.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/unit_layout.h"
#include "pmukit/pmu/verdict.h"

namespace pmukit {
class Machine;
class MachineLock;
class UnitLock;
class UnitLocks;
}  // namespace pmukit

namespace pmukit::pmu {

class Settle;
class JournalScan;

class Preflight {
 public:
  Preflight(Machine& machine, const platform::Database& db);
  ~Preflight();
  Preflight(const Preflight&) = delete;
  Preflight& operator=(const Preflight&) = delete;

  // Ok, NoDriver, NoAccess or Busy: whether the unit's registers can be reached and written and
  // nobody else is counting on them; NoAccess for a unit that shares a register with a unit
  // already granted (PmuUnit::shares_registers_with). Throws UnitInUse when another pmukit tool
  // holds the unit's lock, Error when it holds the lock of a unit sharing its registers.
  const Verdict& access(const discovery::PmuUnit& unit);
  // Ok, NoDriver or DoesNotFit: whether its counters take these events (no hardware is touched).
  Verdict fit(const discovery::PmuUnit& unit, const std::vector<syntax::EncodedEvent>& events);

  // Before a unit's lock is taken, a journal a killed run left on it is recovered on `inventory`
  // (pmu/journal.h JournalScan), settling through `settle`, and `note` is told what was restored.
  // Without this call a journal is left alone.
  void recover_first(const discovery::Inventory& inventory, Settle* settle,
                     std::function<void(const std::string&)> note);

  // What a session adopts: the unit's layout and driver (nullptr with a NoDriver verdict).
  const UnitLayout& layout(const discovery::PmuUnit& unit);
  UnitDriver* driver(const discovery::PmuUnit& unit);
  WriteGuard& guard() { return *guard_; }
  // The lock of a unit whose access was checked.
  const UnitLock& unit_lock(const std::string& unit) const;
  // The session writes its journal under the machine lock, then lets go of it (and of the locks
  // of units it does not program, `keep`, and the units they share registers with).
  void release_machine_lock(const std::vector<const discovery::PmuUnit*>& keep);
  Machine& machine() { return machine_; }

 private:
  struct UnitState {
    UnitLayout layout;
    std::unique_ptr<UnitDriver> driver;
    std::string no_driver;          // why make_driver refused, when it did
    std::optional<Verdict> access;  // cached
  };
  UnitState& state(const discovery::PmuUnit& unit);
  Verdict check_access(UnitState& s);
  std::optional<Verdict> shares_with_granted(const discovery::PmuUnit& unit) const;

  struct Recovery {
    const discovery::Inventory* inventory = nullptr;
    Settle* settle = nullptr;
    std::function<void(const std::string&)> note;
  };
  void take_unit(const discovery::PmuUnit& unit);

  Machine& machine_;
  const platform::Database& db_;
  Recovery recovery_;
  std::unique_ptr<MachineLock> lock_;  // while units are taken
  std::unique_ptr<JournalScan> scan_;  // the journals found under it
  std::unique_ptr<UnitLocks> unit_locks_;
  std::unique_ptr<RegisterIo> io_;
  std::unique_ptr<WriteGuard> guard_;
  std::map<const discovery::PmuUnit*, std::unique_ptr<UnitState>> units_;
  std::set<std::string> granted_;  // names of the units whose access is Ok
};

}  // namespace pmukit::pmu
