// Sharing a machine (issue 35, point 2): pmukit tools lock PMU units, not the machine. Each session
// below stands for a tool: its own preflight, so its own lock files (a flock is per open file, so
// two in one process exclude each other as two processes do). Two count at once on disjoint units,
// in the simulator's modelled time, each exactly what the simulator models, and each puts back
// exactly its own registers; a unit one holds is refused to the other, naming the holder, with
// nothing written; a killed tool's units are recovered by the next tool -- all of them, also those
// it does not count on -- while a live tool's units and journal are not touched.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/families/intel/intel_layout.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/session.h"
#include "pmukit/pmu/unit_layout.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"
#include "support/machines.h"
#include "support/register_image.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// The test's own rates (events per second of modelled time): IMC read CAS (event 0x05, umask
// 0xcf) and CHA clockticks (event 0x01).
constexpr std::uint64_t kCasPerSecond = 3'000'000, kTicksPerSecond = 7'000'000;
constexpr std::uint64_t kCas = 0xcf05, kTicks = 0x01;
constexpr std::uint64_t kSecond = 1'000'000'000;

struct Rig {
  test::TempDir dir;
  std::filesystem::path root;
  std::unique_ptr<Machine> machine;
  discovery::DiscoveryResult found;
  std::unique_ptr<sim::Simulator> sim;
  test::RegisterImage before;
  Rig() : root(dir.path() / "m") {
    families::build_from_spec(test::spr_every_access_type(), root);
    machine = std::make_unique<Machine>(MachineOptions{root});
    found = families::discover(*machine);
    auto rates = sim::Rates::defaults();
    rates.add_rule(fmt::format("intel_spr_imc:{:#06x}={}", kCas, kCasPerSecond));
    rates.add_rule(fmt::format("intel_spr_cha:{:#06x}={}", kTicks, kTicksPerSecond));
    sim = std::make_unique<sim::Simulator>(*machine, found.inventory, rates);
    before = test::register_image(*machine, found.inventory);
  }
  const discovery::PmuUnit& unit(const std::string& name) const {
    for (const auto& u : found.inventory.units)
      if (u.name == name) return u;
    throw Error(name + ": no such unit");
  }
  // A tool's session: one event on each unit, a journal a killed tool left recovered first.
  std::unique_ptr<pmu::DirectSession> tool(const std::vector<std::pair<std::string, std::uint64_t>>& work,
                                           std::function<void(const std::string&)> note = {}) {
    auto pf = std::make_unique<pmu::Preflight>(*machine, platform::Database::builtin());
    pf->recover_first(found.inventory, sim.get(), std::move(note));
    std::vector<pmu::UnitEvents> units;
    for (const auto& [name, config] : work) {
      syntax::EncodedEvent e;
      e.config = config;
      units.push_back({&unit(name), {e}});
    }
    pmu::SessionOptions o;
    o.settle = sim.get();
    return std::make_unique<pmu::DirectSession>(std::move(pf), std::move(units), o);
  }
  // What the unit's owned registers hold now.
  std::vector<std::uint64_t> values(const std::string& name) {
    pmu::RegisterIo io(*machine);
    const auto layout = pmu::make_layout(unit(name), platform::Database::builtin());
    for (const auto& b : layout.blocks) io.map_block(b.base, b.size);
    std::vector<std::uint64_t> out;
    for (const auto& r : layout.owned()) out.push_back(io.read(r));
    return out;
  }
  std::string image_change() { return test::image_difference(before, test::register_image(*machine, found.inventory)); }
};

}  // namespace

TEST(SharedMachine, TwoToolsOnDisjointUnitsCountExactlyAndEachRestoresItsOwn) {
  Rig rig;
  const auto imc0 = rig.values("uncore_imc_0"), cha1 = rig.values("uncore_cha_1");
  auto a = rig.tool({{"uncore_imc_0", kCas}});
  auto b = rig.tool({{"uncore_cha_1", kTicks}});
  EXPECT_EQ(test::journals(rig.root).size(), 2u);  // one journal each
  a->start();
  b->start();
  rig.sim->step(kSecond);
  EXPECT_EQ(a->sample()[0][0].delta, kCasPerSecond);
  EXPECT_EQ(b->sample()[0][0].delta, kTicksPerSecond);
  rig.sim->step(2 * kSecond);
  EXPECT_EQ(a->sample()[0][0].delta, 2 * kCasPerSecond);
  EXPECT_EQ(b->sample()[0][0].delta, 2 * kTicksPerSecond);
  // The first ends: its unit is as it was, the other's still programmed and counting.
  a.reset();
  EXPECT_EQ(rig.values("uncore_imc_0"), imc0);
  EXPECT_NE(rig.values("uncore_cha_1"), cha1);
  EXPECT_EQ(test::journals(rig.root), std::vector<std::filesystem::path>{rig.root / "run/pmukit/uncore_cha_1.journal"});
  rig.sim->step(kSecond);
  EXPECT_EQ(b->sample()[0][0].delta, kTicksPerSecond);
  b.reset();
  EXPECT_EQ(rig.image_change(), "");
  EXPECT_TRUE(test::journals(rig.root).empty());
}

TEST(SharedMachine, AUnitInUseIsRefusedNamingItsHolderWithNothingWritten) {
  Rig rig;
  const auto imc1 = rig.values("uncore_imc_1");
  auto a = rig.tool({{"uncore_imc_0", kCas}});
  a->start();
  const auto programmed = rig.values("uncore_imc_0");
  try {
    rig.tool({{"uncore_imc_1", kCas}, {"uncore_imc_0", kCas}});
    ADD_FAILURE() << "a unit another tool holds was taken";
  } catch (const UnitInUse& e) {
    EXPECT_EQ(e.unit(), "uncore_imc_0");
    EXPECT_STREQ(e.what(), fmt::format("uncore_imc_0 is in use by test_sim (pid {}); units no other pmukit tool holds "
                                       "are free to count",
                                       ::getpid())
                               .c_str());
  }
  EXPECT_EQ(rig.values("uncore_imc_1"), imc1);
  EXPECT_EQ(rig.values("uncore_imc_0"), programmed);
  EXPECT_EQ(test::journals(rig.root).size(), 1u);
  rig.sim->step(kSecond);
  EXPECT_EQ(a->sample()[0][0].delta, kCasPerSecond);
  // The refused tool let go of the unit it had taken: a third takes it.
  auto c = rig.tool({{"uncore_imc_1", kCas}});
  c->start();
  rig.sim->step(kSecond);
  EXPECT_EQ(c->sample()[0][0].delta, kCasPerSecond);
  EXPECT_EQ(a->sample()[0][0].delta, kCasPerSecond);
  a.reset();
  c.reset();
  EXPECT_EQ(rig.image_change(), "");
}

namespace {

// A tool killed while it programs IMC 0 and IMC 1: its journal (named after IMC 0, the lock file it
// records IMC 0's), and both units' counter control 0 left with its event; its locks went with it.
void kill_a_tool_on_both_imcs(Rig& rig) {
  pmu::Preflight killed(*rig.machine, platform::Database::builtin());
  pmu::Journal j{pmu::JournalWriter::self(LockFileId{}), rig.root.string(), {}, {}};
  for (const std::string name : {"uncore_imc_0", "uncore_imc_1"}) {
    ASSERT_TRUE(pmu::ok(killed.access(rig.unit(name))));
    for (const auto& r : killed.layout(rig.unit(name)).owned()) j.entries.push_back({r, killed.guard().original(r)});
  }
  j.writer.lock = killed.unit_lock("uncore_imc_0").file();
  pmu::write_journal(*rig.machine, pmu::journal_path(*rig.machine, "uncore_imc_0"), j);
  for (const std::string name : {"uncore_imc_0", "uncore_imc_1"}) {
    const auto& layout = killed.layout(rig.unit(name));
    killed.guard().write(layout.at(pmu::IntelRole::CounterControl, 0), kCas);  // its event, as the kill left it
  }
}

}  // namespace

// The next tool asks for IMC 1 alone: the killed tool's journal covers IMC 0 too, so both go back
// (IMC 0's lock taken for the recovery and let go: a further tool takes it). The live tool on CHA 1
// keeps its registers, its journal and its counts.
TEST(SharedMachine, AKilledToolsUnitsAreRecoveredAndALiveToolsAreNotTouched) {
  Rig rig;
  const auto imc0 = rig.values("uncore_imc_0"), imc1 = rig.values("uncore_imc_1");
  auto live = rig.tool({{"uncore_cha_1", kTicks}});
  live->start();
  const auto cha1 = rig.values("uncore_cha_1");
  kill_a_tool_on_both_imcs(rig);
  ASSERT_NE(rig.values("uncore_imc_0"), imc0);
  ASSERT_EQ(test::journals(rig.root).size(), 2u);
  std::vector<std::string> notes;
  auto next = rig.tool({{"uncore_imc_1", kCas}}, [&](const std::string& m) { notes.push_back(m); });
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], fmt::format("restored 22 registers from a run killed before it could restore them (test_sim, "
                                  "pid {})",
                                  ::getpid()));
  EXPECT_EQ(rig.values("uncore_imc_0"), imc0);
  EXPECT_EQ(rig.values("uncore_cha_1"), cha1);
  EXPECT_TRUE(std::filesystem::exists(rig.root / "run/pmukit/uncore_cha_1.journal"));
  auto further = rig.tool({{"uncore_imc_0", kCas}});
  live->sample();
  next->start();
  further->start();
  rig.sim->step(kSecond);
  EXPECT_EQ(live->sample()[0][0].delta, kTicksPerSecond);
  EXPECT_EQ(next->sample()[0][0].delta, kCasPerSecond);
  EXPECT_EQ(further->sample()[0][0].delta, kCasPerSecond);
  next.reset();
  further.reset();
  EXPECT_EQ(rig.values("uncore_imc_1"), imc1);
  live.reset();
  EXPECT_EQ(rig.image_change(), "");
}

// pmu-raw --recover (recover_all) with a live tool: the killed tool's journal is recovered, the
// live one's left alone and said so.
TEST(SharedMachine, RecoverLeavesALiveToolsJournalAlone) {
  Rig rig;
  auto live = rig.tool({{"uncore_cha_1", kTicks}});
  live->start();
  const auto cha1 = rig.values("uncore_cha_1");
  kill_a_tool_on_both_imcs(rig);
  auto r = pmu::recover_all(*rig.machine, rig.found.inventory, platform::Database::builtin(), rig.sim.get());
  ASSERT_EQ(r.recovered.size(), 1u);
  EXPECT_EQ(r.recovered[0].registers, 22u);
  ASSERT_EQ(r.left.size(), 1u);
  EXPECT_EQ(r.left[0], fmt::format("{}: left alone: uncore_cha_1 is in use by test_sim (pid {})",
                                   (rig.root / "run/pmukit/uncore_cha_1.journal").string(), ::getpid()));
  EXPECT_EQ(rig.values("uncore_cha_1"), cha1);
  rig.sim->step(kSecond);
  EXPECT_EQ(live->sample()[0][0].delta, kTicksPerSecond);
  live.reset();
  EXPECT_EQ(rig.image_change(), "");
}
