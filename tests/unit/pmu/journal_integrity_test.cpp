// The journal's writer and its content (pmu/journal.h): a killed run is recovered whatever its pid
// names now (pid 1 of a container, a reused pid), because the lock decides; a writer that may
// still run under another lock file is left alone with the way out named; a journal changed after
// it was written (checksum), one listing a register twice, or one holding a value no read of its
// register could return is refused without a write, with what to do; and a journal nobody can
// recover is set aside by --discard-journal.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/families/coresight/coresight_layout.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/pmu/unit_layout.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/process.h"
#include "support/bundled_rig.h"
#include "support/machines.h"
#include "support/register_image.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// SPR with MSR, MMIO and PCI boxes; the journal holds CHA 1's registers as they are.
struct Rig {
  test::TempDir dir;
  std::filesystem::path root;
  std::unique_ptr<Machine> machine;
  discovery::DiscoveryResult found;
  test::RegisterImage before;
  Rig() : root(dir.path() / "m") {
    families::build_from_spec(test::spr_every_access_type(), root);
    machine = std::make_unique<Machine>(MachineOptions{root});
    found = families::discover(*machine);
    before = test::register_image(*machine, found.inventory);
  }
  const discovery::PmuUnit& unit(const std::string& name) const {
    for (const auto& u : found.inventory.units)
      if (u.name == name) return u;
    throw Error(name + ": no such unit");
  }
  // CHA 1's owned registers with the values they hold now, written by `writer`.
  pmu::Journal cha1_journal(const pmu::JournalWriter& writer) {
    pmu::Journal j{writer, root.string(), {}, {}};
    pmu::RegisterIo io(*machine);
    for (const auto& r : pmu::make_layout(unit("uncore_cha_1"), platform::Database::builtin()).owned())
      j.entries.push_back({r, io.read(r)});
    return j;
  }
  std::string image_change() { return test::image_difference(before, test::register_image(*machine, found.inventory)); }
  // The journal of a tool whose first unit is CHA 1.
  std::filesystem::path journal() const { return root / "run/pmukit/uncore_cha_1.journal"; }
  void write(const pmu::Journal& j) { pmu::write_journal(*machine, journal(), j); }
  // recover_all() (the locks taken there); the error text, "" when it recovered.
  std::string recover_error(pmu::WriterDoubt doubt = pmu::WriterDoubt::Refuse) {
    try {
      pmu::recover_all(*machine, found.inventory, platform::Database::builtin(), nullptr, doubt);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

// A lock file other than the one a test holds (as after the lock file was removed and made again).
constexpr LockFileId kOtherLock{1, 2};

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

}  // namespace

// pmu-raw as pid 1 of a PID namespace, killed: its journal says pid 1, which here is init. It
// held this same lock file, which this process holds now: it is gone, and its run is recovered.
TEST(JournalWriter, PidOneOfAContainerIsRecoveredUnderTheSameLock) {
  Rig rig;
  pmu::JournalWriter writer;
  {
    UnitLock theirs(*rig.machine, "uncore_cha_1");
    writer = pmu::JournalWriter::self(theirs.file());
  }
  writer.process.pid = 1;
  writer.process.pid_ns = ProcessIdentity::self().pid_ns + 1;  // another namespace
  writer.process.program = "pmu-raw";
  rig.write(rig.cha1_journal(writer));
  auto all = pmu::recover_all(*rig.machine, rig.found.inventory, platform::Database::builtin(), nullptr);
  ASSERT_EQ(all.recovered.size(), 1u);
  const auto* r = &all.recovered[0];
  EXPECT_EQ(r->message(), fmt::format("restored {} registers from a run killed before it could restore them (pmu-raw, "
                                      "pid 1)",
                                      r->registers));
  EXPECT_FALSE(std::filesystem::exists(rig.journal()));
}

// Under another lock file, the writer's identity decides: a running process with the writer's pid
// but another start time is not the writer (the pid was reused), nor is anything after a reboot.
TEST(JournalWriter, ReusedPidOrAnotherBootIsNotTheWriter) {
  Rig rig;
  auto parent = ProcessIdentity::of(::getppid());
  ASSERT_TRUE(parent);
  pmu::JournalWriter reused{*parent, kOtherLock};
  reused.process.start_ticks += 1;
  rig.write(rig.cha1_journal(reused));
  EXPECT_EQ(rig.recover_error(), "");
  pmu::JournalWriter rebooted{*parent, kOtherLock};
  rebooted.process.boot_id = "00000000-0000-0000-0000-000000000000";
  rig.write(rig.cha1_journal(rebooted));
  EXPECT_EQ(rig.recover_error(), "");
  EXPECT_FALSE(std::filesystem::exists(rig.journal()));
}

// The writer runs (same pid, start time, namespace and boot) under another lock file: nothing is
// restored, and the error says how to end it. From another PID namespace it cannot be seen:
// refused, naming --recover --force, which then recovers.
TEST(JournalWriter, AWriterThatMayRunIsLeftAloneWithTheWayOut) {
  Rig rig;
  auto parent = ProcessIdentity::of(::getppid());
  ASSERT_TRUE(parent);
  parent->program = "pmu-raw";
  rig.write(rig.cha1_journal({*parent, kOtherLock}));
  auto e = rig.recover_error();
  EXPECT_TRUE(
      has(e, fmt::format("written by pmu-raw (pid {}), which still runs, under another lock file", parent->pid)))
      << e;
  EXPECT_TRUE(has(e, fmt::format("end it (kill {}), then run 'pmu-raw --recover'", parent->pid))) << e;
  EXPECT_TRUE(std::filesystem::exists(rig.journal()));

  pmu::JournalWriter elsewhere{*parent, kOtherLock};
  elsewhere.process.pid = 1;
  elsewhere.process.pid_ns = ProcessIdentity::self().pid_ns + 1;
  rig.write(rig.cha1_journal(elsewhere));
  e = rig.recover_error();
  EXPECT_TRUE(has(e, "written by pmu-raw (pid 1) of another PID namespace")) << e;
  EXPECT_TRUE(has(e, "when it has ended, 'pmu-raw --recover --force' restores them")) << e;
  EXPECT_TRUE(std::filesystem::exists(rig.journal()));
  EXPECT_EQ(rig.recover_error(pmu::WriterDoubt::TakeOver), "");
  EXPECT_FALSE(std::filesystem::exists(rig.journal()));
  EXPECT_EQ(rig.image_change(), "");
}

// A value edited after the journal was written: the checksum no longer matches, nothing is
// restored, and the error says how to set the journal aside.
TEST(JournalIntegrity, AnEditedJournalIsRefusedWithoutAWrite) {
  Rig rig;
  auto j = rig.cha1_journal(pmu::JournalWriter{ProcessIdentity::self(), kOtherLock});
  j.writer.process.pid = test::dead_pid();
  rig.write(j);
  std::string text = read_file(rig.journal());
  const auto at = text.find("msr 0 0x2010 64 0x");  // CHA 1's box control
  ASSERT_NE(at, std::string::npos) << text;
  const auto last = text.find('\n', at) - 1;  // its value's last digit, changed
  text[last] = text[last] == '7' ? '6' : '7';
  std::ofstream(rig.journal(), std::ios::trunc) << text;
  auto e = rig.recover_error();
  EXPECT_TRUE(has(e, "uncore_cha_1.journal:")) << e;
  EXPECT_TRUE(has(e, "does not match the journal's content")) << e;
  EXPECT_TRUE(has(e, "it was changed or damaged after pmukit wrote it; nothing restored")) << e;
  EXPECT_TRUE(has(e, "'pmu-raw --discard-journal' sets it aside as uncore_cha_1.journal.discarded")) << e;
  EXPECT_EQ(rig.image_change(), "");
  EXPECT_TRUE(std::filesystem::exists(rig.journal()));
  // The way out: set aside (kept for inspection), and runs are no longer refused.
  auto d = pmu::discard_journals(*rig.machine);
  ASSERT_EQ(d.aside.size(), 1u);
  EXPECT_EQ(d.aside[0].second, rig.root / "run/pmukit/uncore_cha_1.journal.discarded");
  EXPECT_EQ(read_file(d.aside[0].second), text);
  EXPECT_FALSE(std::filesystem::exists(rig.journal()));
  EXPECT_EQ(rig.recover_error(), "");
  EXPECT_TRUE(pmu::discard_journals(*rig.machine).aside.empty());
}

// One register twice: which value is the original? Refused, naming both lines.
TEST(JournalIntegrity, ARegisterListedTwiceIsRefused) {
  pmu::Journal j;
  j.writer.process.pid = 42;
  j.root = "/m";
  j.entries = {{pmu::msr(0, 0x2002), 0x1}, {pmu::msr(0, 0x2003), 0x0}, {pmu::msr(0, 0x2002), 0x400001}};
  try {
    pmu::parse_journal(pmu::format_journal(j), "J");
    ADD_FAILURE() << "a register listed twice was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "J:12: MSR 0x2002 (CPU 0) is listed twice (also on line 10): a journal lists each register "
                           "once");
  }
}

// Values no read of the register could have returned, in a journal whose checksum is right: a
// 48-bit Intel counter holding bit 50 (its discovery record says 48 bits), a CoreSight enable
// bank with the bit of a counter the block does not have (PMCNTENSET bits of unimplemented
// counters read as zero, Arm IHI 0091). Refused without a write.
TEST(JournalIntegrity, AValueNoReadCouldReturnIsRefused) {
  Rig rig;
  auto j = rig.cha1_journal(pmu::JournalWriter{ProcessIdentity::self(), kOtherLock});
  j.writer.process.pid = test::dead_pid();
  for (auto& e : j.entries)
    if (e.reg == pmu::msr(0, 0x2018)) e.value = 1ull << 50;  // CHA 1's counter 0
  rig.write(j);
  auto e = rig.recover_error();
  EXPECT_TRUE(has(e, "MSR 0x2018 (CPU 0) = 0x4000000000000: no read of unit uncore_cha_1's register could return it "
                     "(a 48-bit counter)"))
      << e;
  EXPECT_EQ(rig.image_change(), "");

  test::BundledRig grace("grace-2s");
  const discovery::PmuUnit* scf = nullptr;
  for (const auto& u : grace.found.inventory.units)
    if (u.name == "nvidia_scf_pmu_0") scf = &u;
  ASSERT_TRUE(scf);
  const auto layout = pmu::make_layout(*scf, platform::Database::builtin());
  pmu::Journal g{pmu::JournalWriter{ProcessIdentity::self(), kOtherLock}, grace.root.string(), {}, {}};
  g.writer.process.pid = test::dead_pid();
  pmu::RegisterIo io(*grace.machine);
  for (const auto& b : layout.blocks) io.map_block(b.base, b.size);
  for (const auto& r : layout.owned()) g.entries.push_back({r, io.read(r)});
  for (auto& entry : g.entries)
    if (entry.reg == layout.at(pmu::CoreSightRole::EnableSet, 0)) entry.value = 1u << 20;
  pmu::write_journal(*grace.machine, pmu::journal_path(*grace.machine, "nvidia_scf_pmu_0"), g);
  try {
    pmu::recover_all(*grace.machine, grace.found.inventory, platform::Database::builtin(), nullptr);
    ADD_FAILURE() << "an enable bit of a missing counter was restored";
  } catch (const Error& err) {
    EXPECT_TRUE(has(err.what(), "PMCNTENSET bank 0 of a block without counter 20")) << err.what();
  }
  EXPECT_EQ(grace.image_change(), "");
}
