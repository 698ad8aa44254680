// pmukit -- the preflight: one layout, driver, mapping and save per unit, and its verdict.
#include "pmukit/pmu/preflight.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

// The CPUs and devices whose msr and config files the layout's registers are reached through.
void check_writable(Machine& machine, const UnitLayout& layout) {
  std::set<int> cpus;
  std::set<Bdf> devices;
  for (const auto& r : layout.registers) {
    if (!r.owned) continue;
    if (const auto* m = std::get_if<MsrAddress>(&r.reg.at); m && cpus.insert(m->cpu).second)
      machine.msr(m->cpu).check_writable();
    if (const auto* c = std::get_if<ConfigAddress>(&r.reg.at); c && devices.insert(c->bdf).second)
      machine.pci().config(c->bdf).check_writable();
  }
}

}  // namespace

Preflight::Preflight(Machine& machine, const platform::Database& db)
    : machine_(machine), db_(db), unit_locks_(std::make_unique<UnitLocks>(machine)),
      io_(std::make_unique<RegisterIo>(machine)), guard_(std::make_unique<WriteGuard>(*io_)) {}

Preflight::~Preflight() = default;

Preflight::UnitState& Preflight::state(const discovery::PmuUnit& unit) {
  auto& slot = units_[&unit];
  if (slot) return *slot;
  slot = std::make_unique<UnitState>();
  slot->layout = make_layout(unit, db_);
  try {
    slot->driver = make_driver(slot->layout, db_);
  } catch (const Error& e) {
    slot->no_driver = e.what();
  }
  return *slot;
}

Verdict Preflight::check_access(UnitState& s) {
  if (!s.driver) return NoDriver{s.no_driver};
  try {
    for (const auto& b : s.layout.blocks) io_->map_block(b.base, b.size);
    check_writable(machine_, s.layout);
  } catch (const SystemError& e) {
    return NoAccess{e.what(), e.code()};
  } catch (const Error& e) {
    return NoAccess{e.what(), 0};
  }
  // Saving needs the unit's lock: another tool's values are not ours to put back.
  take_unit(*s.layout.unit);
  try {
    guard_->own(s.layout.owned());
    guard_->commands(s.layout.commands());
  } catch (const SystemError& e) {
    return NoAccess{e.what(), e.code()};
  } catch (const Error& e) {
    return NoAccess{e.what(), 0};
  }
  if (auto busy = s.driver->busy(*guard_)) return *busy;
  return Ok{};
}

void Preflight::recover_first(const discovery::Inventory& inventory, Settle* settle,
                              std::function<void(const std::string&)> note) {
  recovery_ = Recovery{&inventory, settle, std::move(note)};
}

// Under the machine lock: what a killed run left on the unit (or on a unit sharing its registers)
// goes back first, so a --force run never takes the killed run's values for the machine's; then
// the locks of the unit and of the units sharing its registers.
void Preflight::take_unit(const discovery::PmuUnit& unit) {
  std::vector<std::string> names{unit.name};
  names.insert(names.end(), unit.shares_registers_with.begin(), unit.shares_registers_with.end());
  if (std::all_of(names.begin(), names.end(), [&](const std::string& n) { return unit_locks_->holds(n); })) return;
  if (!lock_) lock_ = std::make_unique<MachineLock>(machine_);
  if (recovery_.inventory && !scan_) scan_ = std::make_unique<JournalScan>(machine_, *recovery_.inventory, db_);
  try {
    if (scan_)
      for (const auto& r : scan_->recover(*unit_locks_, names, recovery_.settle))
        if (recovery_.note) recovery_.note(r.message());
    for (const auto& n : names) unit_locks_->take(n);
  } catch (const UnitInUse& e) {
    if (e.unit() == unit.name) throw;
    throw Error(fmt::format("{} shares registers with {}, which is in use by {}: the two are never programmed at once",
                            unit.name, e.unit(), e.holder()));
  }
}

const UnitLock& Preflight::unit_lock(const std::string& unit) const {
  return unit_locks_->at(unit);
}

void Preflight::release_machine_lock(const std::vector<const discovery::PmuUnit*>& keep) {
  std::set<std::string> kept;
  for (const auto* u : keep) {
    kept.insert(u->name);
    kept.insert(u->shares_registers_with.begin(), u->shares_registers_with.end());
  }
  for (const auto& n : unit_locks_->names())
    if (!kept.count(n)) unit_locks_->release(n);
  scan_.reset();
  lock_.reset();
}

// A unit that shares a register with one this run already programs is not programmed too: every
// write to one would be a write to the other (discovery/unit_overlap.h).
std::optional<Verdict> Preflight::shares_with_granted(const discovery::PmuUnit& unit) const {
  for (const auto& other : unit.shares_registers_with)
    if (granted_.count(other))
      return NoAccess{fmt::format("{} shares registers with {}, which this run programs (pmu-discover names the "
                                  "register): the two are never programmed together",
                                  unit.name, other),
                      0};
  return std::nullopt;
}

const Verdict& Preflight::access(const discovery::PmuUnit& unit) {
  auto& s = state(unit);
  if (!s.access) {
    auto shared = shares_with_granted(unit);
    s.access = shared ? *shared : check_access(s);
    if (ok(*s.access)) granted_.insert(unit.name);
  }
  return *s.access;
}

Verdict Preflight::fit(const discovery::PmuUnit& unit, const std::vector<syntax::EncodedEvent>& events) {
  auto& s = state(unit);
  if (!s.driver) return NoDriver{s.no_driver};
  if (auto refused = s.driver->fit(events)) return *refused;
  return Ok{};
}

const UnitLayout& Preflight::layout(const discovery::PmuUnit& unit) {
  return state(unit).layout;
}

UnitDriver* Preflight::driver(const discovery::PmuUnit& unit) {
  return state(unit).driver.get();
}

}  // namespace pmukit::pmu
