// The journal of original register values (pmu/journal.h): its text round-trips, a malformed one is
// an error naming file and line, it is never read or written through a link, recovery refuses an
// entry outside the discovered units without writing, and a --force run after a kill puts back
// the machine's originals, not the killed run's values.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/families/designware/designware_layout.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/pmu/session.h"
#include "pmukit/pmu/unit_layout.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/bundled_rig.h"
#include "support/machines.h"
#include "support/register_image.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// SPR with a unit of every access type: MSR boxes, MMIO boxes, PCI config boxes.
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
  std::string image_change() { return test::image_difference(before, test::register_image(*machine, found.inventory)); }
  // The journal of a tool whose first unit is `unit`.
  std::filesystem::path journal(const std::string& unit = "uncore_cha_1") const {
    return root / "run/pmukit" / (unit + ".journal");
  }
};

// FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3: the FNV reference), the
// journal's checksum, computed here rather than taken from the code under test.
std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string error_of(const std::string& text) {
  try {
    pmu::parse_journal(text, "J");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::string kHead = "pmukit-journal 2\npid 42\nroot /tmp/m\n";
const std::string kHeadV1 = "pmukit-journal 1\npid 42\nroot /tmp/m\n";

// A writer known by its pid alone (as a version 2 journal records it).
pmu::JournalWriter pid_only(long pid) {
  pmu::JournalWriter w;
  w.process.pid = pid;
  return w;
}

}  // namespace

TEST(Journal, RoundTripsEveryAccessKind) {
  pmu::Journal j{pid_only(4242), "/tmp/a root/m", {}, {}};
  j.writer.process.pid_ns = 4026531836;
  j.writer.process.start_ticks = 8812345;
  j.writer.process.boot_id = "1b0e6c1e-5a57-4c2f-9f3e-0d2f6c1b9a77";
  j.writer.process.program = "pmu-raw";
  j.writer.lock = {0x801, 0x1c2e4};
  j.entries.push_back({pmu::msr(3, 0x2002), 0x400001});
  j.entries.push_back({pmu::mmio32(0xc8aa2840), 0xffffffff});
  j.entries.push_back({pmu::mmio64(0xc8aa2848, false), 0x123456789abcdef0});
  j.entries.push_back({pmu::config32(*Bdf::parse("0000:7e:0c.0"), 0x468), 0x1});
  const std::string text = pmu::format_journal(j);
  // The format is what docs and other tools read: written out here, not taken from the code; the
  // checksum is FNV-1a 64 of every byte before its line, computed here (fnv1a64).
  const std::string body =
      "pmukit-journal 3\npid 4242\npidns 4026531836\nstart 8812345\nboot 1b0e6c1e-5a57-4c2f-9f3e-0d2f6c1b9a77\n"
      "program pmu-raw\nlock 0x801:0x1c2e4\nroot /tmp/a root/m\nregisters 4\nmsr 3 0x2002 64 0x400001\n"
      "mmio 0xc8aa2840 32 0xffffffff\nmmio 0xc8aa2848 64 0x123456789abcdef0\npci 0000:7e:0c.0 0x468 32 0x1\n"
      "undo 0\nend\n";
  EXPECT_EQ(text, body + fmt::format("checksum {:#018x}\n", fnv1a64(body)));
  auto back = pmu::parse_journal(text, "J");
  EXPECT_EQ(back.writer.process.pid, 4242);
  EXPECT_EQ(back.writer.process.pid_ns, 4026531836u);
  EXPECT_EQ(back.writer.process.start_ticks, 8812345u);
  EXPECT_EQ(back.writer.process.boot_id, j.writer.process.boot_id);
  EXPECT_EQ(back.writer.process.program, "pmu-raw");
  EXPECT_EQ(back.writer.lock, (LockFileId{0x801, 0x1c2e4}));
  EXPECT_EQ(back.root, "/tmp/a root/m");
  EXPECT_EQ(back.entries, j.entries);
  EXPECT_TRUE(back.undo.empty());
}

// Undo writes (DesignWare EVENT_CNT_CTL: select 0x600 lane 0, then 0x70c lane 1, each per-event
// off 0x1 in [4:2] and clear 0x1 in [1:0] -- Linux dwc_pcie_pmu.c) keep their order, after the
// originals, one register possibly several times.
TEST(Journal, UndoWritesRoundTripInOrder) {
  const Bdf rp = *Bdf::parse("0000:30:00.0");
  pmu::Journal j{pid_only(7), "/m", {{pmu::config32(rp, 0x1d8), 0x0}, {pmu::config32(rp, 0x1e0), 0x0}}, {}};
  j.undo.push_back({pmu::config32(rp, 0x1d8), 0x6000005});
  j.undo.push_back({pmu::config32(rp, 0x1d8), 0x70c0105});
  const std::string text = pmu::format_journal(j);
  EXPECT_NE(text.find("root /m\nregisters 2\npci 0000:30:00.0 0x1d8 32 0x0\n"
                      "pci 0000:30:00.0 0x1e0 32 0x0\nundo 2\npci 0000:30:00.0 0x1d8 32 0x6000005\n"
                      "pci 0000:30:00.0 0x1d8 32 0x70c0105\nend\nchecksum 0x"),
            std::string::npos)
      << text;
  auto back = pmu::parse_journal(text, "J");
  EXPECT_EQ(back.entries, j.entries);
  EXPECT_EQ(back.undo, j.undo);
}

// A journal a pmukit before undo writes left (version 1: no undo section) is still recovered.
TEST(Journal, VersionOneStillParses) {
  auto j = pmu::parse_journal(kHeadV1 + "registers 1\nmsr 0 0x2002 64 0x1\nend\n", "J");
  ASSERT_EQ(j.entries.size(), 1u);
  EXPECT_EQ(j.entries[0].value, 0x1u);
  EXPECT_TRUE(j.undo.empty());
  EXPECT_EQ(error_of(kHeadV1 + "registers 0\nundo 0\nend\n"), "J:5: expected 'end' after 0 registers");
}

TEST(Journal, FileRoundTripAndRemoval) {
  Rig rig;
  pmu::Journal j{pid_only(test::dead_pid()), rig.root.string(), {{pmu::msr(0, 0x2002), 7}}, {}};
  EXPECT_EQ(pmu::journal_path(*rig.machine, "uncore_cha_1"), rig.journal());
  pmu::write_journal(*rig.machine, rig.journal(), j);
  auto back = pmu::read_journal(*rig.machine, rig.journal());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->entries, j.entries);
  for (const auto& e : std::filesystem::directory_iterator(rig.root / "run/pmukit"))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();  // renamed into place
  EXPECT_EQ(pmu::journal_files(*rig.machine), std::vector<std::filesystem::path>{rig.journal()});
  pmu::remove_journal(*rig.machine, rig.journal());
  EXPECT_FALSE(pmu::read_journal(*rig.machine, rig.journal()));
  EXPECT_TRUE(pmu::journal_files(*rig.machine).empty());
}

TEST(Journal, StrictParseNamesFileAndLine) {
  EXPECT_EQ(error_of(""), "J:1: the journal ends early: expected the 'pmukit-journal VERSION' line");
  EXPECT_EQ(error_of("pmukit-journal 4\n"), "J:1: journal version 4 is not one this pmukit reads (1 to 3)");
  EXPECT_EQ(error_of("pmukit-journal 0\n"), "J:1: journal version 0 is not one this pmukit reads (1 to 3)");
  EXPECT_EQ(error_of("hello\n"), "J:1: not a pmukit journal (expected 'pmukit-journal VERSION')");
  EXPECT_EQ(error_of(kHead + "registers 2\nmsr 0 0x2002 64 0x1\n"),
            "J:6: the journal ends early: expected a register line");
  EXPECT_EQ(error_of(kHead + "registers 1\nmsr 0 0x2002 32 0x1\nend\n"), "J:5: an MSR is 64 bits wide");
  EXPECT_EQ(error_of(kHead + "registers 1\nmmio 0xc8aa2840 32 0x100000000\nend\n"),
            "J:5: value '0x100000000' is wider than 32 bits");
  EXPECT_EQ(error_of(kHead + "registers 1\nmmio 12 32 0x1\nend\n"),
            "J:5: address '12' is not a 0x-prefixed hexadecimal number");
  EXPECT_EQ(error_of(kHead + "registers 1\npci 7e:0c.0 0x468 32 0x1\nend\n"),
            "J:5: '7e:0c.0' is not a PCI address dddd:bb:dd.f");
  EXPECT_EQ(error_of(kHead + "registers 1\nport 0x80 8 0x1\nend\n").substr(0, 25), "J:5: expected a register:");
  EXPECT_EQ(error_of(kHead + "registers 1\nmsr 0 0x2002 64 0x1\nend"),
            "J:6: the last line has no newline (a truncated journal)");
  EXPECT_EQ(error_of(kHead + "registers 0\nundo 0\nend\nmore\n"), "J:6: text after 'end'");
  EXPECT_EQ(error_of(kHead + "registers 0\nmsr 0 0x2002 64 0x1\n"), "J:5: expected 'undo ...'");
  EXPECT_EQ(error_of(kHead + "registers 0\nend\n"), "J:5: expected 'undo ...'");
  EXPECT_EQ(error_of(kHead + "registers 0\nundo 2\npci 0000:30:00.0 0x1d8 32 0x6000005\nend\n"),
            "J:7: expected a register: 'msr CPU MSR WIDTH VALUE', 'mmio ADDRESS WIDTH VALUE' or 'pci BDF OFFSET WIDTH "
            "VALUE'");
  EXPECT_EQ(error_of(kHead + "registers 0\nundo 1\npci 0000:30:00.0 0x1d8 32 0x6000005\n"),
            "J:7: the journal ends early: expected 'end'");
  EXPECT_EQ(error_of(kHead + "registers 0\nundo 0\nmsr 0 0x2002 64 0x1\n"),
            "J:6: expected 'end' after the undo writes");
}

TEST(Journal, NeverThroughASymbolicLink) {
  Rig rig;
  const auto outside = rig.dir.path() / "outside";
  std::ofstream(outside) << "precious\n";
  std::filesystem::create_directories(rig.root / "run/pmukit");
  // A link inside the root is not followed (O_NOFOLLOW); one that leads out is refused as such.
  for (const auto& [target, says] : {std::pair<std::filesystem::path, std::string>{"../../PMUKIT_SYNTHETIC_MACHINE",
                                                                                   "cha_1.journal: a symbolic link"},
                                     {outside, "cha_1.journal: a link leads out of the machine root"}}) {
    std::filesystem::remove(rig.journal());
    std::filesystem::create_symlink(target, rig.journal());
    try {
      pmu::read_journal(*rig.machine, rig.journal());
      ADD_FAILURE() << "a link was read as a journal";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_THROW(pmu::write_journal(*rig.machine, rig.journal(), {pid_only(1), rig.root.string(), {}, {}}), Error);
    EXPECT_EQ(read_file(outside), "precious\n");
  }
  // A link among the journal's directories is refused before anything is created.
  std::filesystem::remove_all(rig.root / "run");
  std::filesystem::create_directories(rig.dir.path() / "elsewhere");
  std::filesystem::create_directory_symlink(rig.dir.path() / "elsewhere", rig.root / "run");
  EXPECT_THROW(pmu::write_journal(*rig.machine, rig.journal(), {pid_only(1), rig.root.string(), {}, {}}), Error);
  EXPECT_TRUE(std::filesystem::is_empty(rig.dir.path() / "elsewhere"));
}

TEST(Journal, EntryOutsideTheInventoryIsRefusedWithoutAWrite) {
  Rig rig;
  // CHA 0's control first (a register recovery may write), then one no discovered unit owns.
  pmu::Journal j{
      pid_only(test::dead_pid()), rig.root.string(), {{pmu::msr(0, 0x2000), 0x5}, {pmu::msr(0, 0x10), 0}}, {}};
  pmu::write_journal(*rig.machine, rig.journal("uncore_cha_0"), j);
  try {
    pmu::recover_all(*rig.machine, rig.found.inventory, platform::Database::builtin(), nullptr);
    ADD_FAILURE() << "recovered a register outside every PMU unit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("uncore_cha_0.journal: MSR 0x10 (CPU 0): not a register of any PMU unit"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(rig.image_change(), "");
  EXPECT_TRUE(std::filesystem::exists(rig.journal("uncore_cha_0")));  // kept: nothing was restored
}

// The writer held its units' locks for as long as its journal existed: whoever holds them now
// knows it is gone, whatever its pid names today. A version 2 journal (pid alone) whose pid is a
// running process -- pid 1 of a container, a reused pid -- is recovered once the locks are held.
TEST(Journal, WriterOfAnOlderJournalIsGoneOnceTheLockIsHeld) {
  Rig rig;
  std::filesystem::create_directories(rig.root / "run/pmukit");
  const std::string v2 = "pmukit-journal 2\npid 1\nroot " + rig.root.string() + "\nregisters 0\nundo 0\nend\n";
  std::ofstream(rig.journal()) << v2;
  auto r = pmu::recover_all(*rig.machine, rig.found.inventory, platform::Database::builtin(), nullptr);
  ASSERT_EQ(r.recovered.size(), 1u);
  EXPECT_EQ(r.recovered[0].pid, 1);
  EXPECT_TRUE(r.left.empty());
  EXPECT_FALSE(std::filesystem::exists(rig.journal()));
}

// A run killed after programming CHA 1 leaves its counter enabled: without the journal, a --force
// run would save that as the original and put it back. With it, the original comes back.
TEST(Journal, ForceAfterAKillKeepsTheOriginals) {
  Rig rig;
  const auto& cha1 = rig.unit("uncore_cha_1");
  {
    pmu::Preflight killed(*rig.machine, platform::Database::builtin());
    ASSERT_TRUE(pmu::ok(killed.access(cha1)));
    pmu::Journal j{pmu::JournalWriter::self(killed.unit_lock("uncore_cha_1").file()), rig.root.string(), {}, {}};
    j.writer.process.pid = 1;  // as pid 1 of a container wrote it: a pid that runs here too
    for (const auto& r : killed.layout(cha1).owned()) j.entries.push_back({r, killed.guard().original(r)});
    pmu::write_journal(*rig.machine, rig.journal(), j);
    killed.guard().write(pmu::msr(0, 0x2012), 0x400001);  // counter 0 counting, as the kill left it
    killed.guard().write(pmu::msr(0, 0x2010), 0);         // box unfrozen
  }                                                       // the lock goes with the process
  ASSERT_NE(rig.image_change(), "");
  std::vector<std::string> notes;
  auto pf = std::make_unique<pmu::Preflight>(*rig.machine, platform::Database::builtin());
  pf->recover_first(rig.found.inventory, nullptr, [&](const std::string& m) { notes.push_back(m); });
  syntax::EncodedEvent clockticks;
  clockticks.config = 0x01;
  {
    pmu::SessionOptions opts;
    opts.force = true;
    pmu::DirectSession s(std::move(pf), {{&cha1, {clockticks}}}, opts);
    s.start();
    s.stop();
  }
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("restored "), std::string::npos) << notes[0];
  EXPECT_EQ(rig.image_change(), "");
  EXPECT_TRUE(pmu::journal_files(*rig.machine).empty());  // the session's own journal went with its restore
}

// An undo write goes only to a command register (DesignWare EVENT_CNT_CTL) of a unit whose
// originals the journal holds: one to TIME_BASED_ANAL_CTL, or to another root port's
// EVENT_CNT_CTL, refuses the whole journal, nothing written.
TEST(Journal, UndoWriteOutsideACommandRegisterIsRefusedWithoutAWrite) {
  test::BundledRig rig("yitian");
  const discovery::PmuUnit *rp = nullptr, *other = nullptr;
  for (const auto& u : rig.found.inventory.units)
    if (u.name == "dwc_rootport_3018")
      rp = &u;
    else if (u.name.rfind("dwc_rootport_", 0) == 0 && !other)
      other = &u;
  ASSERT_TRUE(rp && other);
  const auto& db = platform::Database::builtin();
  const auto layout = pmu::make_layout(*rp, db), other_layout = pmu::make_layout(*other, db);
  pmu::RegisterIo io(*rig.machine);
  pmu::Journal j{pid_only(test::dead_pid()), rig.root.string(), {}, {}};
  for (const auto& r : layout.owned()) j.entries.push_back({r, io.read(r)});
  // Lane event 0x700 on lane 0 off (0x1 in [4:2]) and cleared (0x1 in [1:0]): Linux dwc_pcie_pmu.c.
  const std::uint64_t off = 0x7000005;
  const std::pair<pmu::Reg, std::string> refused[] = {
      {layout.at(pmu::DwcRole::TimeControl), "not a command register of unit dwc_rootport_3018"},
      {other_layout.at(pmu::DwcRole::LaneControl), "not a register of a unit the journal restores"}};
  for (const auto& [reg, says] : refused) {
    j.undo = {{layout.at(pmu::DwcRole::LaneControl), off}, {reg, off}};
    pmu::write_journal(*rig.machine, pmu::journal_path(*rig.machine, "dwc_rootport_3018"), j);
    try {
      pmu::recover_all(*rig.machine, rig.found.inventory, db, nullptr);
      ADD_FAILURE() << "an undo write to " << reg.str() << " was made";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("undo write 0x7000005 to {}: {}", reg.str(), says)),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(rig.image_change(), "");
    EXPECT_TRUE(std::filesystem::exists(rig.root / "run/pmukit/dwc_rootport_3018.journal"));
  }
}
