// pmukit -- the journal of original register values: what survives a tool killed with SIGKILL.
//
// A kill cannot be caught, so a run's restore cannot run. Before its first register write a
// counting session writes every saved register's original value to its journal,
// units.path/UNIT.journal (ROOT/run/pmukit/uncore_imc_0.journal), UNIT being the first unit it
// programs: one journal per running tool, covering exactly the units whose locks it holds
// (access/machine_lock.h), written first under the machine lock and removed by its restore. A
// normal exit, and every handled error or signal after the restore, removes it. A journal always
// covers the unit it is named after, so its name is never another live tool's.
//
// The next process that takes the lock of a unit a journal covers, and finds its writer dead, puts
// the originals of every unit of that journal back before it saves anything itself (so --force
// never saves a killed run's values as "original"): it takes the locks of the journal's other
// units for the recovery, and lets go of those it does not program. A journal one of whose units
// another live process holds is never recovered: it is that process's, or waits for it.
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
//   pmukit-journal 3
//   pid 4242                        the writer: its pid,
//   pidns 4026531836                PID namespace inode, start time (clock ticks after boot),
//   start 8812345                   boot and program (util/process.h), and the lock file it
//   boot 1b0e6c1e-...               held (device:inode) while the journal existed
//   program pmu-raw
//   lock 0x801:0x1c2e4
//   root /tmp/spr-2s
//   registers 3
//   msr 0 0x2002 64 0x0            CPU, MSR number, width, value
//   mmio 0xc8aa2840 32 0x0          physical address, width, value
//   pci 0000:7e:0c.0 0x468 32 0x0   BDF, config offset, width, value
//   undo 1
//   pci 0000:7e:0c.0 0x1d8 32 0x6000005   a write recovery makes, in order, before the originals
//   end
//   checksum 0x5bd1e9955bd1e995     FNV-1a 64 of every byte before this line
//
// Version 2 (no writer identity, no checksum) and version 1 (nor undo writes; nothing it
// programmed needed one) journals are still recovered. A register is listed once.
//
// Whether the writer can still run is decided by the locks: the writer held the lock of every unit
// of its journal for as long as the journal existed, and the journal records the lock file of the
// unit it is named after; a process that holds that same lock file knows the writer is gone,
// whatever its pid now names (pid 1 of a container, a reused pid). Only a journal written under
// another lock file (removed and created again, or a units.path moved with -O) is judged by the
// writer's identity: the same boot, PID namespace, pid and start time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/access/machine_lock.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/util/process.h"

namespace pmukit {
class Machine;
class UnitLocks;
}  // namespace pmukit
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

// The process that wrote a journal, and the lock file it held (0:0 before version 3).
struct JournalWriter {
  ProcessIdentity process;
  LockFileId lock;
  // This process, holding `lock`.
  static JournalWriter self(const LockFileId& lock);
};

struct Journal {
  static constexpr int kVersion = 3;
  static constexpr int kOldestVersion = 1;  // no undo section; 2: no writer identity, no checksum
  JournalWriter writer;                     // the process that wrote it
  std::string root;                         // the machine root it was written for
  std::vector<JournalEntry> entries;
  // Writes (register, value) recovery makes in order before restoring the originals: each to a
  // command register of a unit whose originals are here (UnitDriver::undo).
  std::vector<JournalEntry> undo;
};

std::string format_journal(const Journal& j);
// Strict: any deviation is an Error "<name>:<line>: <what was expected>": a checksum that does not
// match, a register listed twice, a value wider than its register.
Journal parse_journal(std::string_view text, const std::string& name);
// FNV-1a 64 of `text`: the journal's checksum.
std::uint64_t journal_checksum(std::string_view text);

// The journal of a tool whose first unit is `unit`: units.path/UNIT.journal.
std::filesystem::path journal_path(const Machine& machine, std::string_view unit);
// Every journal in units.path (UNIT.journal), in name order; none when the directory is absent.
std::vector<std::filesystem::path> journal_files(const Machine& machine);
// The unit a journal file is named after ("uncore_imc_0" for .../uncore_imc_0.journal).
std::string journal_unit(const std::filesystem::path& journal);
// Written to a temporary file next to it, fsync'd, renamed into place, the directory fsync'd.
// Never through a symbolic link; directories only through real directories of the root.
void write_journal(const Machine& machine, const std::filesystem::path& path, const Journal& j);
// nullopt when there is none; Error naming the file when it is not a regular file or malformed,
// with what to do about it (pmu-raw --discard-journal).
std::optional<Journal> read_journal(const Machine& machine, const std::filesystem::path& path);
void remove_journal(const Machine& machine, const std::filesystem::path& path);
// What to do about a journal that cannot be recovered: set it aside with pmu-raw --discard-journal.
std::string discard_hint(const std::filesystem::path& journal);
// Whether a journal file exists: a run that finds none needs no lock to say so.
bool journal_exists(const Machine& machine);
// Under the machine lock (taken and released here): moves each journal whose writer is gone (the
// lock of the unit it is named after is free) aside to <journal>.discarded (replacing an older
// one), so that runs are no longer refused by a journal nobody can recover; its registers are not
// restored. A journal whose unit another process holds is left, and said so in `left`.
struct Discarded {
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> aside;  // journal, where it went
  std::vector<std::string> left;
};
Discarded discard_journals(const Machine& machine);

// What a recovery put back.
struct Recovered {
  std::size_t registers = 0;
  long pid = 0;
  std::string program;          // the killed run's program, "" when the journal does not say
  std::string message() const;  // "restored N registers from a run killed ... (pid P)"
};
// How recovery treats a journal whose writer it cannot prove gone (written under another lock
// file by a process of another PID namespace): Refuse (the default), or TakeOver (pmu-raw
// --recover --force: the user says that run has ended).
enum class WriterDoubt { Refuse, TakeOver };

// The journals of units.path, read under the machine lock: each checked against the owned
// registers of the units discovered now (an entry outside them, a value its register cannot have
// held, an undo write to anything but a command register of a journalled unit: Error, nothing
// written, saying what to do), and the units each covers. Built only when a journal exists.
class JournalScan {
 public:
  JournalScan(Machine& machine, const discovery::Inventory& inventory, const platform::Database& db);
  ~JournalScan();
  JournalScan(const JournalScan&) = delete;
  JournalScan& operator=(const JournalScan&) = delete;

  // Recovers every journal that covers one of `units` (unit names; every journal when empty)
  // and whose writer is gone: takes the locks of its units into `held`, makes the undo writes in
  // order (each settled), restores each unit through its driver's restore phases with the
  // journal's values as the originals, settling between phases, removes the journal, and lets go
  // of the locks it took for units not in `units`. A journal with a unit another process holds is
  // not touched: with `units` empty (pmu-raw --recover) it is said in `left`; otherwise UnitInUse
  // when that unit is one of `units`, an Error saying whose it is when not. Throws Error, saying
  // what to do, when the writer may still run.
  std::vector<Recovered> recover(UnitLocks& held, const std::vector<std::string>& units, Settle* settle,
                                 WriterDoubt doubt = WriterDoubt::Refuse, std::vector<std::string>* left = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What pmu-raw --recover did.
struct RecoverAll {
  std::vector<Recovered> recovered;
  std::vector<std::string> left;  // journals a live tool holds: why each was left
};
// Every journal, under the machine lock (taken and released here) and the locks of its units
// (taken and released here).
RecoverAll recover_all(Machine& machine, const discovery::Inventory& inventory, const platform::Database& db,
                       Settle* settle, WriterDoubt doubt = WriterDoubt::Refuse);

// Why the journal's writer may still run although this process holds the locks `held` ("" when
// it is certainly gone): the writer held another lock file, and its identity still names a
// process. `where` names the lock for the message.
std::string writer_may_run(const JournalWriter& writer, const std::vector<LockFileId>& held,
                           const std::filesystem::path& where);

// A run's points of no return, for a harness that observes them: write point 0 is right after the
// journal is durable, before any register write; point N right after the N-th register write.
// Tools install none. The kill-recovery tests link pmu-raw with a hook that ends the process
// there as SIGKILL from outside would, but deterministically (tests/support/kill_after_writes.cpp).
using WritePointHook = void (*)(std::size_t writes_done);
void set_write_point_hook(WritePointHook hook);
void write_point(std::size_t writes_done);  // calls the hook, if one is installed

}  // namespace pmukit::pmu
