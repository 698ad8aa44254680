// The preflight's verdicts are types (Ok, Busy with the register and its value, NoAccess with
// errno, NoDriver, DoesNotFit), computed once per unit, and the session that adopts the preflight
// maps no block and saves no register a second time. Nothing is saved without the machine lock.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/access/register_window.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/pmu/session.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"
#include "support/machines.h"
#include "support/spec_rig.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

struct Rig : test::SpecRig {
  Rig() : SpecRig(test::spr_every_access_type()) {}
  // A copy of an MSR box reached through another CPU (-1: none known).
  discovery::PmuUnit msr_box_on_cpu(int cpu) const {
    auto u = unit("uncore_cha_0");
    u.as<discovery::IntelUnit>()->msr_cpu = cpu;
    return u;
  }
};

syntax::EncodedEvent ev(std::uint64_t config) {
  syntax::EncodedEvent e;
  e.config = config;
  return e;
}

}  // namespace

TEST(Preflight, VerdictsAreTypes) {
  Rig rig;
  {
    pmu::RegisterIo io(*rig.machine);
    io.write(pmu::msr(0, 0x2012), 0x400001);  // CHA 1 counter 0 programmed by someone else
  }
  pmu::Preflight pf(*rig.machine, platform::Database::builtin());
  EXPECT_TRUE(pmu::ok(pf.access(rig.unit("uncore_imc_0"))));
  const auto* busy = std::get_if<pmu::Busy>(&pf.access(rig.unit("uncore_cha_1")));
  ASSERT_NE(busy, nullptr);
  EXPECT_EQ(busy->reg, pmu::msr(0, 0x2012));
  EXPECT_EQ(busy->value, 0x400001u);
  EXPECT_EQ(pmu::describe(*busy, "uncore_cha_1"),
            "uncore_cha_1: in use: counter control MSR 0x2012 (CPU 0) is 0x400001");

  auto unreachable = rig.msr_box_on_cpu(9);  // the snapshot has CPUs 0-3: dev/cpu/9/msr does not exist
  const auto* no_access = std::get_if<pmu::NoAccess>(&pf.access(unreachable));
  ASSERT_NE(no_access, nullptr);
  EXPECT_EQ(no_access->err, ENOENT) << no_access->why;
  EXPECT_NE(no_access->why.find("cpu/9/msr"), std::string::npos) << no_access->why;

  auto nowhere = rig.msr_box_on_cpu(-1);
  const auto* no_driver = std::get_if<pmu::NoDriver>(&pf.access(nowhere));
  ASSERT_NE(no_driver, nullptr);
  EXPECT_NE(no_driver->why.find("no CPU of socket 0 is known to reach its MSRs"), std::string::npos);

  auto too_many = pf.fit(rig.unit("uncore_imc_0"), {ev(1), ev(2), ev(3), ev(4), ev(5)});
  const auto* refused = std::get_if<pmu::DoesNotFit>(&too_many);
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(refused->reason, "uncore_imc_0: 5 events but the box has 4 counters and 1 fixed counter");
  EXPECT_TRUE(refused->counters_short);  // only the counters are short: pmu::plan_rotation multiplexes them
  EXPECT_TRUE(pmu::ok(pf.fit(rig.unit("uncore_imc_0"), {ev(0xcf05), ev(0xff)})));
}

TEST(Preflight, EachBlockIsMappedAndEachRegisterSavedOnceForTheWholeRun) {
  Rig rig;
  auto pf = std::make_unique<pmu::Preflight>(*rig.machine, platform::Database::builtin());
  const auto& imc0 = rig.unit("uncore_imc_0");
  const auto& imc1 = rig.unit("uncore_imc_1");
  const auto maps_before = RegisterWindow::mmap_calls();
  const auto* first = &pf->access(imc0);
  EXPECT_TRUE(pmu::ok(pf->access(imc1)));
  EXPECT_EQ(RegisterWindow::mmap_calls() - maps_before, 2u);  // one block per box
  EXPECT_EQ(&pf->access(imc0), first);                        // cached, not checked again
  const auto saved = pf->guard().saved();
  EXPECT_EQ(saved, 2u * 11);  // box control, 4 x (control, counter), fixed control and counter
  const auto maps = RegisterWindow::mmap_calls();
  auto* guard = &pf->guard();
  {
    pmu::DirectSession s(std::move(pf), {{&imc0, {ev(0xcf05)}}, {&imc1, {ev(0xcf05)}}}, {});
    s.start();
    s.sample();
    EXPECT_EQ(RegisterWindow::mmap_calls(), maps);  // the session adopted the mappings
    EXPECT_EQ(guard->saved(), saved);               // and the saved values
  }
}

// A unit another process holds is refused, naming it, before anything of it is saved; the other
// units are free.
TEST(Preflight, NothingIsSavedWithoutTheUnitLock) {
  Rig rig;
  UnitLock other(*rig.machine, "uncore_imc_0");  // another program counts on IMC 0
  pmu::Preflight pf(*rig.machine, platform::Database::builtin());
  try {
    pf.access(rig.unit("uncore_imc_0"));
    FAIL();
  } catch (const UnitInUse& e) {
    EXPECT_EQ(e.unit(), "uncore_imc_0");
    EXPECT_EQ(std::string(e.what()).find(fmt::format("uncore_imc_0 is in use by test_pmu (pid {});", ::getpid())), 0u)
        << e.what();
  }
  EXPECT_EQ(pf.guard().saved(), 0u);
  EXPECT_TRUE(pmu::ok(pf.access(rig.unit("uncore_imc_1"))));
  EXPECT_EQ(pf.guard().saved(), 11u);  // IMC 1's registers alone
}
