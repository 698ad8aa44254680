// Time-division multiplexing's plan and its rotation against the in-process simulator: which events
// share the counters (groups kept whole, first fit), the refusals that stay refusals, and a
// rotation that fails half-way still restoring every register as it was.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/multiplex.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/pmu/session.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"
#include "support/machines.h"
#include "support/register_image.h"
#include "support/spec_rig.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

struct Rig : test::SpecRig {
  std::unique_ptr<sim::Simulator> sim;
  explicit Rig(const nlohmann::json& spec = test::spr_every_access_type())
      : SpecRig(spec), sim(std::make_unique<sim::Simulator>(*machine, found.inventory, sim::Rates::defaults())) {}
};

std::vector<syntax::EncodedEvent> imc_events(std::size_t n) {
  std::vector<syntax::EncodedEvent> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i].config = 0x05 | (i + 1) << 8, out[i].name = fmt::format("e{}", i);
  return out;
}

using Sets = std::vector<std::vector<std::size_t>>;

// A settle point that fails on its n-th call, as a simulator that dies (or an error) in the
// middle of a rotation would leave the session: some writes of the rotation made, others not.
struct FailingSettle : pmu::Settle {
  pmu::Settle& inner;
  int left;
  FailingSettle(pmu::Settle& s, int n) : inner(s), left(n) {}
  void settle() override {
    if (left-- == 0) throw Error("the simulator went away");
    inner.settle();
  }
};

}  // namespace

// An SPR IMC box has 4 general counters (Intel's uncore PMON guide; Linux uncore_snbep.c
// spr_uncore_imc: .num_counters = 4): 6 events take two sets; groups stay whole and events alone
// fill the first set they fit.
TEST(Multiplex, GroupsStayWholeAndEventsFillTheFirstSetTheyFit) {
  Rig rig;
  pmu::Preflight pre(*rig.machine, platform::Database::builtin());
  const auto& imc = rig.unit("uncore_imc_0");
  auto fits = pmu::plan_rotation(pre, imc, imc_events(4), {-1, -1, -1, -1});
  ASSERT_TRUE(pmu::ok(fits.verdict));
  EXPECT_EQ(fits.sets, (Sets{{0, 1, 2, 3}}));
  EXPECT_FALSE(fits.multiplexed());
  auto plan = pmu::plan_rotation(pre, imc, imc_events(6), {0, 0, 0, 1, 1, -1});
  ASSERT_TRUE(pmu::ok(plan.verdict));
  EXPECT_EQ(plan.sets, (Sets{{0, 1, 2, 5}, {3, 4}}));
  auto alone = pmu::plan_rotation(pre, imc, imc_events(9), std::vector<int>(9, -1));
  EXPECT_EQ(alone.sets, (Sets{{0, 1, 2, 3}, {4, 5, 6, 7}, {8}}));
}

TEST(Multiplex, AGroupLargerThanTheCountersIsStillAnError) {
  Rig rig;
  pmu::Preflight pre(*rig.machine, platform::Database::builtin());
  auto plan = pmu::plan_rotation(pre, rig.unit("uncore_imc_0"), imc_events(6), {-1, 0, 0, 0, 0, 0});
  const auto* d = std::get_if<pmu::DoesNotFit>(&plan.verdict);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(plan.sets.empty());
  EXPECT_TRUE(d->kernel_rule);  // perf cannot count it either: the kernel validates a group whole
  EXPECT_NE(d->message().find("uncore_imc_0: the group {e1,e2,e3,e4,e5} does not fit the counters"), std::string::npos)
      << d->message();
}

// SPR IIO inbound events may use counters 0-1 only (Linux uncore_snbep.c icx_uncore_iio_constraints;
// perfmon Counter "0,1"), outbound ones 2-3: a third inbound event takes turns although two counters
// are free, the outbound event joins the first set, and a group of three inbound events can never
// be counted, with the rule named.
TEST(Multiplex, ConstrainedEventsTakeTurnsOnTheirOwnCounters) {
  Rig rig(test::spr_every_access_type(test::spr_iio_boxes()));
  pmu::Preflight pre(*rig.machine, platform::Database::builtin());
  const auto& iio = rig.unit("uncore_iio_0");
  std::vector<syntax::EncodedEvent> events(4);
  const std::uint64_t configs[] = {0x0483, 0x0183, 0x0883, 0x01c0};
  for (std::size_t i = 0; i < 4; ++i) events[i].config = configs[i], events[i].name = fmt::format("e{}", i);
  auto plan = pmu::plan_rotation(pre, iio, events, {-1, -1, -1, -1});
  ASSERT_TRUE(pmu::ok(plan.verdict)) << pmu::describe(plan.verdict, iio.name);
  EXPECT_EQ(plan.sets, (Sets{{0, 1, 3}, {2}}));
  auto group = pmu::plan_rotation(pre, iio, events, {0, 0, 0, -1});
  const auto* d = std::get_if<pmu::DoesNotFit>(&group.verdict);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->kernel_rule);
  EXPECT_EQ(d->reason, "uncore_iio_0: the group {e0,e1,e2} does not fit the counters (uncore_iio_0: 3 events (e0, "
                       "e1, e2) share counters 0,1: event 0x83 may use only counters 0,1 (Linux uncore_snbep.c "
                       "icx_uncore_iio_constraints))");
}

// Only a shortage of counters is multiplexed: a refusal of another kind stays the verdict.
TEST(Multiplex, OtherRefusalsAreNotSpreadOverSets) {
  Rig rig;
  pmu::Preflight pre(*rig.machine, platform::Database::builtin());
  auto events = imc_events(6);
  events[5].config1 = 0x1;  // a filter value, and the IMC box has no filter register
  auto plan = pmu::plan_rotation(pre, rig.unit("uncore_imc_0"), events, std::vector<int>(6, -1));
  const auto* d = std::get_if<pmu::DoesNotFit>(&plan.verdict);
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->counters_short);
  EXPECT_NE(d->reason.find("needs a filter register"), std::string::npos) << d->reason;
}

// A rotation is stop, reset, configure, start with a settle after each: whichever of them fails,
// the session's restore puts every register back byte for byte.
TEST(Multiplex, ARotationFailingHalfWayStillRestoresEveryRegister) {
  for (int failing = 0; failing < 4; ++failing) {
    Rig rig;
    auto before = test::register_image(*rig.machine, rig.found.inventory);
    FailingSettle settle(*rig.sim, 1'000);
    pmu::SessionOptions o;
    o.settle = &settle;
    auto events = imc_events(6);
    {
      pmu::DirectSession s(*rig.machine, {{&rig.unit("uncore_imc_0"), {events[0], events[1], events[2], events[3]}}},
                           platform::Database::builtin(), o);
      s.start();
      rig.sim->step(4'000'000);
      settle.left = failing;  // counted from the rotation's first settle
      EXPECT_THROW(s.reprogram(0, {events[4], events[5]}), Error) << failing;
    }
    rig.sim->step(0);
    EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.found.inventory)), "") << failing;
  }
}
