// pmukit -- recovery from a killed run: the journal's originals put back through the drivers.
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/pmu/settle.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

// Every owned register of every discovered unit, and which unit's layout holds it.
struct OwnedRegisters {
  std::deque<UnitLayout> layouts;  // stable: drivers keep references into them
  std::map<Address, std::pair<std::size_t, Reg>> at;

  OwnedRegisters(const discovery::Inventory& inventory, const platform::Database& db) {
    for (const auto& unit : inventory.units) {
      layouts.push_back(make_layout(unit, db));
      for (const auto& r : layouts.back().registers)
        if (r.owned) at.emplace(r.reg.at, std::pair{layouts.size() - 1, r.reg});
    }
  }
};

bool alive(long pid) {
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
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
// write when an entry is not an owned register of a discovered unit, or a unit is incomplete.
std::set<std::size_t> check_entries(const Journal& j, const OwnedRegisters& owned, const std::string& name) {
  std::set<std::size_t> units;
  std::set<Address> listed;
  for (const auto& e : j.entries) {
    auto it = owned.at.find(e.reg.at);
    if (it == owned.at.end())
      throw Error(fmt::format("{}: {}: not a register of any PMU unit discovered on this machine; nothing restored",
                              name, e.reg.str()));
    if (it->second.second.width != e.reg.width)
      throw Error(fmt::format("{}: {}: {} bits in the journal, {} in unit {}; nothing restored", name, e.reg.str(),
                              e.reg.width, it->second.second.width, owned.layouts[it->second.first].unit->name));
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

}  // namespace

std::optional<Recovered> recover(Machine& machine, const discovery::Inventory& inventory, const platform::Database& db,
                                 Settle* settle) {
  auto journal = read_journal(machine);
  if (!journal) return std::nullopt;
  const std::string name = journal_path(machine).string();
  if (alive(journal->pid))
    throw Error(fmt::format("{}: written by pid {}, which is still running; its registers are not restored while it "
                            "may be counting",
                            name, journal->pid));
  OwnedRegisters owned(inventory, db);
  auto units = check_entries(*journal, owned, name);
  RegisterIo io(machine);
  WriteGuard guard(io);
  guard.settle_commands(settle);
  for (const auto& e : journal->entries) guard.own_as(owned.at.at(e.reg.at).second, e.value);
  std::vector<std::unique_ptr<UnitDriver>> drivers;
  for (auto u : units) {
    for (const auto& b : owned.layouts[u].blocks) io.map_block(b.base, b.size);
    guard.commands(owned.layouts[u].commands());
    drivers.push_back(make_driver(owned.layouts[u], db));
    drivers.back()->adopt(guard);
  }
  // What the killed run turned on that no original value turns off (each write settled: they are
  // to command registers), then as a session restores: every unit one phase at a time, settling
  // between phases.
  for (const auto& w : journal->undo) guard.write(owned.at.at(w.reg.at).second, w.value);
  for (auto phase : kRestorePhases) {
    for (auto& d : drivers) d->restore(guard, phase);
    if (settle) settle->settle();
  }
  remove_journal(machine);
  return Recovered{journal->entries.size(), journal->pid};
}

std::optional<Recovered> recover_under_lock(Machine& machine, const discovery::Inventory& inventory,
                                            const platform::Database& db, Settle* settle) {
  MachineLock lock(machine);
  return recover(machine, inventory, db, settle);
}

}  // namespace pmukit::pmu
