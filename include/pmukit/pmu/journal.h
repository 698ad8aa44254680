// pmukit -- the journal of original register values: what survives a pmu-raw killed with SIGKILL.
//
// A kill cannot be caught, so a run's restore cannot run. Before its first register write a
// counting session writes every saved register's original value to journal.path
// (ROOT/run/pmukit.journal: next to the lock, one per machine, written and removed only while the
// lock is held). A normal exit, and every handled error or signal after the restore, removes it.
// The next process that takes the lock and finds a journal whose writer is dead puts the
// originals back before it saves anything itself (so --force never saves a killed run's values as
// "original").
//
// An original value cannot say everything a run changed: DesignWare's EVENT_CNT_CTL is a command
// register (one lane event's enable per write, each lane event keeping its own), so a root port's
// lane events the run turned on stay on whatever value the register is given back. Before the
// first write that turns such a thing on, the session journals the writes that undo it, in the
// order its restore makes them (DwcDriver: select | lane | per-event off | per-event clear, per
// lane event programmed); a reprogrammed unit (multiplexing) journals its new ones again before
// configuring them. Recovery makes those writes in order, each settled under a simulator, then
// restores every unit with the originals, as a normal restore does.
//
// The format is text, one register a line, parsed strictly:
//
//   pmukit-journal 2
//   pid 4242
//   root /tmp/spr-2s
//   registers 3
//   msr 0 0x2002 64 0x0            CPU, MSR number, width, value
//   mmio 0xc8aa2840 32 0x0          physical address, width, value
//   pci 0000:7e:0c.0 0x468 32 0x0   BDF, config offset, width, value
//   undo 1
//   pci 0000:7e:0c.0 0x1d8 32 0x6000005   a write recovery makes, in order, before the originals
//   end
//
// A version 1 journal (pmukit before undo writes; nothing it programmed needed one) has no undo
// section and is still recovered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/pmu/register_io.h"

namespace pmukit {
class Machine;
}
namespace pmukit::discovery {
struct Inventory;
}
namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

class Settle;

struct JournalEntry {
  Reg reg;  // address and width; how it is loaded and stored comes from the unit's layout
  std::uint64_t value = 0;
  bool operator==(const JournalEntry& o) const {
    return reg.at == o.reg.at && reg.width == o.reg.width && value == o.value;
  }
};

struct Journal {
  static constexpr int kVersion = 2;
  static constexpr int kOldestVersion = 1;  // no undo section
  long pid = 0;                             // the process that wrote it
  std::string root;                         // the machine root it was written for
  std::vector<JournalEntry> entries;
  // Writes (register, value) recovery makes in order before restoring the originals: each to a
  // command register of a unit whose originals are here (UnitDriver::undo).
  std::vector<JournalEntry> undo;
};

std::string format_journal(const Journal& j);
// Strict: any deviation is an Error "<name>:<line>: <what was expected>".
Journal parse_journal(std::string_view text, const std::string& name);

// The journal file of `machine` (the journal.path parameter).
std::filesystem::path journal_path(const Machine& machine);
// Written to a temporary file next to it, fsync'd, renamed into place, the directory fsync'd.
// Never through a symbolic link; directories only through real directories of the root.
void write_journal(const Machine& machine, const Journal& j);
// nullopt when there is none; Error naming the file when it is not a regular file or malformed.
std::optional<Journal> read_journal(const Machine& machine);
void remove_journal(const Machine& machine);

// What a recovery put back.
struct Recovered {
  std::size_t registers = 0;
  long pid = 0;
  std::string message() const;  // "restored N registers from a run killed ... (pid P)"
};
// With the machine lock held: when a journal exists and its writer is dead, checks every entry
// against the owned registers of the units discovered now (an entry outside them, or an undo
// write to anything but a command register of a journalled unit, refuses the whole journal,
// nothing written), makes the undo writes in order (each settled), restores each unit through its driver's restore
// phases with the journal's values as the originals, settling between phases, and removes the journal. nullopt when
// there is nothing to recover. Throws Error when the journal's writer is still running, or the journal is malformed or
// does not fit this machine.
std::optional<Recovered> recover(Machine& machine, const discovery::Inventory& inventory, const platform::Database& db,
                                 Settle* settle);

// recover() under the machine lock, taken and released here (pmu-raw --recover). Throws Error
// naming the lock's holder when another pmu-raw runs.
std::optional<Recovered> recover_under_lock(Machine& machine, const discovery::Inventory& inventory,
                                            const platform::Database& db, Settle* settle);

// Test-only (PMUKIT_TEST_KILL_AFTER_WRITES=N, never for production use): the process raises
// SIGKILL right after its N-th register write (N = 0: right after the journal is written, before
// any write), so tests can prove that a kill at every point of a run is recovered byte for byte.
void test_kill_point(std::size_t writes_done);

}  // namespace pmukit::pmu
