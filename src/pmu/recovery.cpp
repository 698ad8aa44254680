// pmukit -- recovery from a killed run: each journal's originals put back through the drivers, under
// the locks of its units.
#include <algorithm>
#include <cerrno>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/pmu/family_driver.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/pmu/settle.h"
#include "pmukit/util/error.h"
#include "pmukit/util/process.h"

namespace pmukit::pmu {

namespace {

// Every owned register of every discovered unit, and which unit's layout holds it.
struct OwnedRegisters {
  std::deque<UnitLayout> layouts;  // stable: drivers keep references into them
  std::map<Address, std::pair<std::size_t, Reg>> at;
  std::map<Address, const UnitRegister*> role;  // into layouts

  OwnedRegisters(const discovery::Inventory& inventory, const platform::Database& db) {
    for (const auto& unit : inventory.units) {
      layouts.push_back(make_layout(unit, db));
      for (const auto& r : layouts.back().registers)
        if (r.owned && at.emplace(r.reg.at, std::pair{layouts.size() - 1, r.reg}).second) role.emplace(r.reg.at, &r);
    }
  }
};

// What no read of the register could have returned, so no run saved it ("" when plausible): the
// unit's family knows (counter bits above the width, enable bits of absent counters).
std::string implausible(const UnitLayout& layout, const UnitRegister& r, std::uint64_t value) {
  const auto* family = family_driver(*layout.unit);
  return family ? family->implausible_original(layout, r, value) : "";
}

// Undo writes go only to a command register of a unit whose originals the journal holds: a
// register whose every write acts on what it selects, so no original value says how to undo it.
void check_undo(const Journal& j, const OwnedRegisters& owned, const std::set<std::size_t>& units,
                const std::string& name) {
  for (const auto& w : j.undo) {
    auto it = owned.at.find(w.reg.at);
    const bool journalled = it != owned.at.end() && units.count(it->second.first);
    if (!journalled || it->second.second.width != w.reg.width)
      throw Error(fmt::format("{}: undo write {:#x} to {}: not a register of a unit the journal restores; nothing "
                              "restored",
                              name, w.value, w.reg.str()));
    const auto commands = owned.layouts[it->second.first].commands();
    if (std::find(commands.begin(), commands.end(), w.reg) == commands.end())
      throw Error(fmt::format("{}: undo write {:#x} to {}: not a command register of unit {}; nothing restored", name,
                              w.value, w.reg.str(), owned.layouts[it->second.first].unit->name));
  }
}

// The units the journal covers, each with every one of its owned registers; throws without a
// write when an entry is not an owned register of a discovered unit, holds a value its register
// cannot have held, or a unit is incomplete.
std::set<std::size_t> check_entries(const Journal& j, const OwnedRegisters& owned, const std::string& name) {
  std::set<std::size_t> units;
  std::set<Address> listed;
  for (const auto& e : j.entries) {
    auto it = owned.at.find(e.reg.at);
    if (it == owned.at.end())
      throw Error(fmt::format("{}: {}: not a register of any PMU unit discovered on this machine; nothing restored",
                              name, e.reg.str()));
    const auto& layout = owned.layouts[it->second.first];
    if (it->second.second.width != e.reg.width)
      throw Error(fmt::format("{}: {}: {} bits in the journal, {} in unit {}; nothing restored", name, e.reg.str(),
                              e.reg.width, it->second.second.width, layout.unit->name));
    if (auto why = implausible(layout, *owned.role.at(e.reg.at), e.value); !why.empty())
      throw Error(fmt::format("{}: {} = {:#x}: no read of unit {}'s register could return it ({}): not a value pmukit "
                              "saved; nothing restored: {}",
                              name, e.reg.str(), e.value, layout.unit->name, why, discard_hint(name)));
    units.insert(it->second.first);
    listed.insert(e.reg.at);
  }
  for (auto u : units)
    for (const auto& r : owned.layouts[u].owned())
      if (!listed.count(r.at))
        throw Error(fmt::format("{}: unit {}: {} is missing from the journal; nothing restored", name,
                                owned.layouts[u].unit->name, r.str()));
  check_undo(j, owned, units, name);
  return units;
}

std::string who(const ProcessIdentity& p) {
  return fmt::format("{} (pid {})", p.program.empty() ? "the pmukit tool that wrote it" : p.program, p.pid);
}

// Throws, saying what to do, unless the writer is gone or the user said so.
void check_writer(const Journal& j, const std::vector<LockFileId>& held, const std::filesystem::path& where,
                  WriterDoubt doubt, const std::string& name) {
  const std::string why = writer_may_run(j.writer, held, where);
  if (why.empty() || doubt == WriterDoubt::TakeOver) return;
  const bool here = process_runs(j.writer.process.pid, j.writer.process.start_ticks) &&
                    j.writer.process.pid_ns == ProcessIdentity::self().pid_ns;
  throw Error(fmt::format("{}: {}; its registers are not restored while it may be counting: {}", name, why,
                          here ? fmt::format("end it (kill {}), then run 'pmu-raw --recover'", j.writer.process.pid)
                               : "when it has ended, 'pmu-raw --recover --force' restores them"));
}

bool among(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::string writer_may_run(const JournalWriter& writer, const std::vector<LockFileId>& held,
                           const std::filesystem::path& where) {
  // It held its units' locks for as long as the journal existed: the lock file it recorded, held
  // here, means it is gone. A journal before version 3 does not say which file.
  if (writer.lock == LockFileId{} || std::find(held.begin(), held.end(), writer.lock) != held.end()) return "";
  const auto self = ProcessIdentity::self();
  const auto& p = writer.process;
  if (!p.boot_id.empty() && !self.boot_id.empty() && p.boot_id != self.boot_id) return "";  // before a reboot
  if (p.pid_ns && self.pid_ns && p.pid_ns != self.pid_ns)
    return fmt::format("written by {} of another PID namespace ({}) under another lock file than those in {}: this "
                       "process cannot see whether it still runs",
                       who(p), p.pid_ns, where.string());
  if (!process_runs(p.pid, p.start_ticks)) return "";  // ended; its pid, if in use, names another process
  return fmt::format("written by {}, which still runs, under another lock file than those in {}", who(p),
                     where.string());
}

struct JournalScan::Impl {
  Machine& machine;
  const platform::Database& db;
  std::unique_ptr<OwnedRegisters> owned;  // built when a journal exists
  struct Found {
    std::filesystem::path path;
    std::vector<std::string> units;  // the units its entries cover, and the one it is named after
    bool done = false;
  };
  std::vector<Found> journals;

  std::optional<Recovered> recover_one(const Found& f, const UnitLocks& held, Settle* settle, WriterDoubt doubt);
  void restore(const Journal& journal, const std::set<std::size_t>& units, Settle* settle);
  std::optional<std::vector<std::string>> take(const Found& f, UnitLocks& held, const std::vector<std::string>& units,
                                               std::vector<std::string>* left);
};

JournalScan::JournalScan(Machine& machine, const discovery::Inventory& inventory, const platform::Database& db)
    : impl_(std::make_unique<Impl>(Impl{machine, db, nullptr, {}})) {
  const auto files = journal_files(machine);
  if (files.empty()) return;
  impl_->owned = std::make_unique<OwnedRegisters>(inventory, db);
  for (const auto& path : files) {
    auto j = read_journal(machine, path);
    if (!j) continue;  // its writer ended meanwhile
    Impl::Found f{path, {journal_unit(path)}, false};
    for (auto u : check_entries(*j, *impl_->owned, path.string()))
      if (!among(f.units, impl_->owned->layouts[u].unit->name)) f.units.push_back(impl_->owned->layouts[u].unit->name);
    impl_->journals.push_back(std::move(f));
  }
}

JournalScan::~JournalScan() = default;

// The journal's originals back: undo writes first (each settled: they are to command registers),
// then as a session restores, every unit one phase at a time, settling between phases.
void JournalScan::Impl::restore(const Journal& journal, const std::set<std::size_t>& units, Settle* settle) {
  RegisterIo io(machine);
  WriteGuard guard(io);
  guard.settle_commands(settle);
  for (const auto& e : journal.entries) guard.own_as(owned->at.at(e.reg.at).second, e.value);
  std::vector<std::unique_ptr<UnitDriver>> drivers;
  for (auto u : units) {
    for (const auto& b : owned->layouts[u].blocks) io.map_block(b.base, b.size);
    guard.commands(owned->layouts[u].commands());
    drivers.push_back(make_driver(owned->layouts[u], db));
    drivers.back()->adopt(guard);
  }
  for (const auto& w : journal.undo) guard.write(owned->at.at(w.reg.at).second, w.value);
  for (auto phase : kRestorePhases) {
    for (auto& d : drivers) d->restore(guard, phase);
    if (settle) settle->settle();
  }
}

// Read again (a running writer may have added undo writes before it died), checked, restored.
std::optional<Recovered> JournalScan::Impl::recover_one(const Found& f, const UnitLocks& held, Settle* settle,
                                                        WriterDoubt doubt) {
  auto journal = read_journal(machine, f.path);
  if (!journal) return std::nullopt;
  const std::string name = f.path.string();
  check_writer(*journal, held.files(), f.path.parent_path(), doubt, name);
  restore(*journal, check_entries(*journal, *owned, name), settle);
  remove_journal(machine, f.path);
  return Recovered{journal->entries.size(), journal->writer.process.pid, journal->writer.process.program};
}

// The locks of the journal's units this process lacks, taken (their names); nullopt with `left`
// told why when another process holds one and every journal is recovered; throws when only some are.
std::optional<std::vector<std::string>> JournalScan::Impl::take(const Found& f, UnitLocks& held,
                                                                const std::vector<std::string>& units,
                                                                std::vector<std::string>* left) {
  std::vector<std::string> taken, order = f.units;
  // The units asked for first: one of them in use is that unit's refusal (a live tool's journal).
  std::stable_partition(order.begin(), order.end(), [&](const std::string& n) { return among(units, n); });
  try {
    for (const auto& n : order) {
      if (held.holds(n)) continue;
      held.take(n);
      taken.push_back(n);
    }
  } catch (const UnitInUse& e) {
    for (const auto& n : taken) held.release(n);
    if (units.empty()) {
      if (left)
        left->push_back(fmt::format("{}: left alone: {} is in use by {}", f.path.string(), e.unit(), e.holder()));
      return std::nullopt;
    }
    if (among(units, e.unit())) throw;
    throw Error(fmt::format("{}: a journal that covers {} also covers {}, which is in use by {}; its registers are "
                            "restored once that tool ends ('pmu-raw --recover')",
                            f.path.string(), fmt::join(units, ", "), e.unit(), e.holder()));
  }
  return taken;
}

std::vector<Recovered> JournalScan::recover(UnitLocks& held, const std::vector<std::string>& units, Settle* settle,
                                            WriterDoubt doubt, std::vector<std::string>* left) {
  std::vector<Recovered> out;
  for (auto& f : impl_->journals) {
    if (f.done) continue;
    const bool covers = units.empty() || std::any_of(f.units.begin(), f.units.end(),
                                                     [&](const std::string& n) { return among(units, n); });
    if (!covers) continue;
    const auto taken = impl_->take(f, held, units, left);
    if (!taken) continue;
    auto let_go = [&] {
      for (const auto& n : *taken)
        if (!among(units, n)) held.release(n);
    };
    try {
      if (auto r = impl_->recover_one(f, held, settle, doubt)) out.push_back(*r);
    } catch (...) {
      let_go();
      throw;
    }
    let_go();
    f.done = true;
  }
  return out;
}

RecoverAll recover_all(Machine& machine, const discovery::Inventory& inventory, const platform::Database& db,
                       Settle* settle, WriterDoubt doubt) {
  RecoverAll out;
  if (!journal_exists(machine)) return out;
  MachineLock lock(machine);
  UnitLocks held(machine);
  JournalScan scan(machine, inventory, db);
  out.recovered = scan.recover(held, {}, settle, doubt, &out.left);
  return out;
}

}  // namespace pmukit::pmu
