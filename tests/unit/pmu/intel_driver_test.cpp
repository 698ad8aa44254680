// Intel box programming end to end against the in-process simulator: every access type counts
// exactly at the modelled rates, wraps at 48 bits, refuses what cannot fit, and leaves every
// register as it found it.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/machine_lock.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/events/unit_events.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/session.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "support/machines.h"
#include "support/register_image.h"
#include "support/test_support.h"

using namespace pmukit;
using json = nlohmann::json;

namespace {

json machine_spec(json extra_units = json::array()) {
  return test::spr_every_access_type(std::move(extra_units));
}

struct Rig {
  test::TempDir dir;
  std::unique_ptr<Machine> machine;
  discovery::DiscoveryResult found;
  std::unique_ptr<sim::Simulator> sim;

  explicit Rig(const json& spec, std::vector<std::string> rates = {}) {
    families::build_from_spec(spec, dir.path() / "m");
    machine = std::make_unique<Machine>(MachineOptions{dir.path() / "m"});
    found = families::discover(*machine);
    auto r = sim::Rates::defaults();
    for (const auto& rule : rates) r.add_rule(rule);
    sim = std::make_unique<sim::Simulator>(*machine, found.inventory, r);
  }
  const discovery::PmuUnit* unit(const std::string& name) const {
    for (const auto& u : found.inventory.units)
      if (u.name == name) return &u;
    return nullptr;
  }
  pmu::SessionOptions options(bool force = false) {
    pmu::SessionOptions o;
    o.force = force;
    o.settle = sim.get();
    return o;
  }
  std::unique_ptr<pmu::DirectSession> session(std::vector<pmu::UnitEvents> work, bool force = false) {
    return std::make_unique<pmu::DirectSession>(*machine, std::move(work), platform::Database::builtin(),
                                                options(force));
  }
};

syntax::EncodedEvent ev(std::uint64_t config, std::uint64_t config1 = 0) {
  syntax::EncodedEvent e;
  e.config = config;
  e.config1 = config1;
  return e;
}

}  // namespace

TEST(IntelDriver, EveryAccessTypeCountsAtTheModelledRateAndRestores) {
  Rig rig(machine_spec(), {"intel_spr_raw:0x0002=3000000", "intel_spr_cha:0x0001=2000000000"});
  auto before = test::register_image(*rig.machine, rig.found.inventory);
  {
    auto s = rig.session({{rig.unit("uncore_imc_2"), {ev(0xcf05), ev(0xf005)}},
                          {rig.unit("uncore_cha_1"), {ev(0x01)}},
                          {rig.unit("uncore_m2m"), {ev(0x02)}}});
    s->start();
    rig.sim->step(2'000'000'000);  // two seconds of simulated time
    auto v = s->sample();
    EXPECT_EQ(v[0][0].delta, 200'000'000u);    // cas_count_read: 1e8/s
    EXPECT_EQ(v[0][1].delta, 100'000'000u);    // cas_count_write: 5e7/s
    EXPECT_EQ(v[1][0].delta, 4'000'000'000u);  // CHA clockticks over MSRs
    EXPECT_EQ(v[2][0].delta, 6'000'000u);      // M2M over PCI config space
    s->stop();
    rig.sim->step(1'000'000'000);  // frozen: nothing more counts
    EXPECT_EQ(s->sample()[0][0].delta, 0u);
    s->restore();
    EXPECT_TRUE(s->restore_errors().empty());
  }
  rig.sim->step(1'000'000'000);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.found.inventory)), "");
}

// One device's config-space counters are one read of the range that covers them: M2M's four
// 64-bit counters at 0x440..0x45f, each two dwords read hi-lo-hi, are that range read twice (the
// second read's low dwords fall between the two reads of each high dword), not three dword reads
// per counter.
TEST(IntelDriver, ConfigSpaceCountersOfOneDeviceAreOneRangeReadTwice) {
  Rig rig(machine_spec(), {"intel_spr_raw:0x0002=3000000"});
  auto s = rig.session({{rig.unit("uncore_m2m"), {ev(0x01), ev(0x02), ev(0x03), ev(0x04)}}});
  s->start();
  rig.sim->step(1'000'000'000);
  const std::uint64_t before = rig.machine->pci().total_config_reads();
  const auto& v = s->sample();
  EXPECT_EQ(rig.machine->pci().total_config_reads() - before, 2u);
  EXPECT_EQ(v[0][1].delta, 3'000'000u);  // the rate the rule sets, through the range read
  s->restore();
}

TEST(IntelDriver, CountersWrapAt48BitsAndTotalsCarryOn) {
  Rig rig(machine_spec(), {"intel_spr_imc:0xcf05=100000000000000"});  // 1e14/s: 2^48 in 2.8 s
  auto s = rig.session({{rig.unit("uncore_imc_0"), {ev(0xcf05)}}});
  s->start();
  bool wrapped = false;
  std::uint64_t total = 0;
  for (int i = 0; i < 5; ++i) {
    rig.sim->step(1'000'000'000);
    auto v = s->sample()[0][0];
    EXPECT_EQ(v.delta, 100'000'000'000'000u);
    wrapped = wrapped || v.wrapped;
    total = v.total;
  }
  EXPECT_TRUE(wrapped);
  EXPECT_EQ(total, 500'000'000'000'000u);
}

// The counter control word, field by field: perf terms through the SPR CHA formats (umask split
// over config:8-15 and 32-63, tid_en at bit 16: uncore_snbep.c spr_uncore_cha_formats_attr) into
// the 64-bit MSR control as spr_uncore_msr_enable_event writes it -- no enable bit; the restore
// puts the control back to what it held.
TEST(IntelDriver, CounterControlFieldsLandWhereTheFormatsSay) {
  Rig rig(machine_spec());
  auto bound = events::bind_events(
      syntax::parse_event_list("uncore_cha_1/event=0x35,umask=0x1bc8ff,edge=1,inv=1,thresh=0x5,tid_en=1/"),
      rig.found.inventory, platform::Database::builtin());
  ASSERT_EQ(bound.size(), 1u);
  const std::uint64_t want =
      0x35 | 0xffull << 8 | 1ull << 16 | 1ull << 18 | 1ull << 23 | 0x5ull << 24 | 0x1bc8ull << 32;
  pmu::RegisterIo io(*rig.machine);
  const auto ctl0 = pmu::msr(0, 0x2012);  // box 1: 0x2000 + id stride 0x10, controls at +2
  const std::uint64_t before = io.read(ctl0);
  {
    auto s = rig.session({{bound[0].unit, {bound[0].encoded}}});
    EXPECT_EQ(io.read(ctl0), want) << std::hex << io.read(ctl0);
  }
  EXPECT_EQ(io.read(ctl0), before);
}

TEST(IntelDriver, FixedCounterAndFilterRegister) {
  Rig rig(machine_spec(), {"fixed=1600000000"});
  auto before = test::register_image(*rig.machine, rig.found.inventory);
  {
    // tid_en (config bit 16) makes the CHA event use its TID filter (spr_cha_hw_config).
    auto s = rig.session({{rig.unit("uncore_imc_5"), {ev(0xff)}}, {rig.unit("uncore_cha_0"), {ev(0x10135, 0x3)}}});
    pmu::RegisterIo io(*rig.machine);
    EXPECT_EQ(io.read(pmu::msr(0, 0x200e)), 0x3u);  // CHA TID filter from config1
    s->start();
    rig.sim->step(500'000'000);
    EXPECT_EQ(s->sample()[0][0].delta, 800'000'000u);  // DRAM clocks on the fixed counter
  }
  rig.sim->step(0);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.found.inventory)), "");
}

TEST(IntelDriver, RefusesWhatTheBoxCannotCountWithoutWriting) {
  Rig rig(machine_spec());
  auto before = test::register_image(*rig.machine, rig.found.inventory);
  const auto* imc = rig.unit("uncore_imc_0");
  try {
    rig.session({{imc, {ev(0x01), ev(0x02), ev(0x03), ev(0x04), ev(0x05)}}});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("uncore_imc_0: 5 events but the box has 4 counters"), std::string::npos);
  }
  EXPECT_THROW(rig.session({{imc, {ev(0x2000000cf05ull)}}}), UsageError);  // umask ext on 32-bit control
  EXPECT_THROW(rig.session({{imc, {ev(0x05, 0x1)}}}), UsageError);         // no filter register
  EXPECT_THROW(rig.session({{rig.unit("uncore_cha_0"), {ev(0x10001, 1), ev(0x10002, 2)}}}), UsageError);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.found.inventory)), "");
}

TEST(IntelDriver, BusyUnitsAreLeftAloneUnlessForced) {
  Rig rig(machine_spec());
  pmu::RegisterIo io(*rig.machine);
  io.map_block(0xc8aa2800, 0x100);
  io.write(pmu::mmio32(0xc8aa2840), 0x105);  // someone else's event on IMC 0 counter 0
  auto before = test::register_image(*rig.machine, rig.found.inventory);
  try {
    rig.session({{rig.unit("uncore_imc_0"), {ev(0xcf05)}}});
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("uncore_imc_0: in use (counter control MMIO 0xc8aa2840 is 0x105)"), std::string::npos) << m;
    EXPECT_NE(m.find("--force"), std::string::npos);
  }
  {
    auto s = rig.session({{rig.unit("uncore_imc_0"), {ev(0xcf05)}}}, true);
    s->start();
    rig.sim->step(1'000'000'000);
    EXPECT_EQ(s->sample()[0][0].delta, 100'000'000u);
  }
  rig.sim->step(0);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.found.inventory)), "");
}

TEST(IntelDriver, GuardRefusesRegistersNoUnitOwns) {
  Rig rig(machine_spec());
  pmu::RegisterIo io(*rig.machine);
  pmu::WriteGuard guard(io);
  guard.own({pmu::msr(0, 0x2000)});
  EXPECT_NO_THROW(guard.write(pmu::msr(0, 0x2000), 1));
  try {
    guard.write(pmu::msr(0, 0x2ff0), 1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("refused write of 0x1 to MSR 0x2ff0 (CPU 0)"), std::string::npos);
  }
  EXPECT_EQ(guard.writes(), 1u);
  EXPECT_EQ(guard.original(pmu::msr(0, 0x2000)), 0u);
}

// Sessions share a machine unit by unit: a second one takes another unit, not the first's.
TEST(IntelDriver, OneUnitOneSession) {
  Rig rig(machine_spec());
  auto s = rig.session({{rig.unit("uncore_imc_0"), {ev(0xcf05)}}});
  auto other = rig.session({{rig.unit("uncore_imc_1"), {ev(0xcf05)}}});
  try {
    rig.session({{rig.unit("uncore_imc_0"), {ev(0xcf05)}}});
    FAIL();
  } catch (const UnitInUse& e) {
    EXPECT_NE(std::string(e.what()).find("uncore_imc_0 is in use by test_pmu (pid "), std::string::npos) << e.what();
  }
}

// Time-division multiplexing's building block: a unit's events are replaced mid-run with the same
// saved registers and mappings, its counts start again from zero, the other units count on, and
// the restore still puts back what was there before the run.
TEST(IntelDriver, ReprogrammingAUnitMidRunKeepsTheSavedRegisters) {
  Rig rig(machine_spec());
  auto before = test::register_image(*rig.machine, rig.found.inventory);
  {
    auto s = rig.session({{rig.unit("uncore_imc_0"), {ev(0xcf05)}}, {rig.unit("uncore_imc_1"), {ev(0xcf05)}}});
    s->start();
    rig.sim->step(1'000'000'000);
    EXPECT_EQ(s->sample()[0][0].delta, 100'000'000u);  // cas_count_read: 1e8/s
    const auto writes = s->register_writes();
    s->reprogram(0, {ev(0xf005), ev(0xff)});  // cas_count_write and the DRAM clocks
    EXPECT_GT(s->register_writes(), writes);
    rig.sim->step(2'000'000'000);
    auto v = s->sample();
    ASSERT_EQ(v[0].size(), 2u);
    EXPECT_EQ(v[0][0].delta, 100'000'000u);    // 5e7/s for 2 s, from the reprogramming on
    EXPECT_EQ(v[0][1].delta, 3'200'000'000u);  // the fixed counter's default rate, 1.6e9/s
    EXPECT_EQ(v[1][0].delta, 200'000'000u);    // the other box counted on
    EXPECT_THROW(s->reprogram(0, {ev(1), ev(2), ev(3), ev(4), ev(5)}), UsageError);
  }
  rig.sim->step(0);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.found.inventory)), "");
}

namespace {

syntax::EncodedEvent named(std::uint64_t config, std::string name) {
  auto e = ev(config);
  e.name = std::move(name);
  return e;
}

}  // namespace

// Linux uncore_snbep.c icx_uncore_iio_constraints (which spr_uncore_iio uses) and the perfmon
// Counter fields: inbound DATA_REQ_OF_CPU (event 0x83) on counters 0-1, outbound DATA_REQ_BY_CPU
// (0xc0) on counters 2-3. Given outbound first, the events still land there, and each counts
// its own rate (the simulator counts nothing for an event on a counter its rule excludes).
TEST(IntelDriver, IioInboundAndOutboundEventsLandOnTheirCounters) {
  Rig rig(machine_spec(test::spr_iio_boxes()),
          {"intel_snr_iio:0x01c0=1000", "intel_snr_iio:0x0483=2000", "intel_snr_iio:0x0183=3000"});
  auto before = test::register_image(*rig.machine, rig.found.inventory);
  {
    auto s = rig.session({{rig.unit("uncore_iio_1"), {ev(0x01c0), ev(0x0483), ev(0x0183)}}});
    pmu::RegisterIo io(*rig.machine);
    EXPECT_EQ(io.read(pmu::msr(0, 0x3018)), 0x483u);  // counter 0: the first inbound event
    EXPECT_EQ(io.read(pmu::msr(0, 0x3019)), 0x183u);  // counter 1: the second
    EXPECT_EQ(io.read(pmu::msr(0, 0x301a)), 0x1c0u);  // counter 2: the outbound event
    EXPECT_EQ(io.read(pmu::msr(0, 0x301b)), 0u);
    s->start();
    rig.sim->step(1'000'000'000);
    auto v = s->sample();
    EXPECT_EQ(v[0][0].delta, 1000u);
    EXPECT_EQ(v[0][1].delta, 2000u);
    EXPECT_EQ(v[0][2].delta, 3000u);
  }
  rig.sim->step(0);
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.found.inventory)), "");
}

TEST(IntelDriver, ThreeInboundEventsDoNotFitAndTheRuleIsNamed) {
  Rig rig(machine_spec(test::spr_iio_boxes()));
  auto before = test::register_image(*rig.machine, rig.found.inventory);
  try {
    rig.session({{rig.unit("uncore_iio_0"), {named(0x0483, "rd"), named(0x0183, "wr"), named(0x0883, "x")}}});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "uncore_iio_0: 3 events (rd, wr, x) share counters 0,1: event 0x83 may use only "
                           "counters 0,1 (Linux uncore_snbep.c icx_uncore_iio_constraints)");
  }
  // Four events, two of each direction, fill the box.
  EXPECT_NO_THROW(rig.session({{rig.unit("uncore_iio_0"), {ev(0x0483), ev(0x01c0), ev(0x0183), ev(0x04c0)}}}));
  EXPECT_EQ(test::image_difference(before, test::register_image(*rig.machine, rig.found.inventory)), "");
}

// The model itself: an inbound event written on counter 2 counts nothing, on counter 0 it counts
// (controls as Linux writes them: the config alone).
TEST(IntelDriver, SimulatorCountsAConstrainedEventOnlyOnItsCounters) {
  Rig rig(machine_spec(test::spr_iio_boxes()), {"intel_snr_iio:0x0483=5000"});
  pmu::RegisterIo io(*rig.machine);
  io.write(pmu::msr(0, 0x3008), 0x483);
  io.write(pmu::msr(0, 0x300a), 0x483);
  io.write(pmu::msr(0, 0x3000), 0);  // box unfrozen
  rig.sim->step(1'000'000'000);
  EXPECT_EQ(io.read(pmu::msr(0, 0x3001)), 5000u);
  EXPECT_EQ(io.read(pmu::msr(0, 0x3003)), 0u);
}

// The busy check takes the controls own() has just saved (no second read of each): the saved value
// while nothing has been written through the guard, the register's own value after a write.
TEST(IntelDriver, ReadSavedIsWhatOwnReadUntilTheFirstWrite) {
  Rig rig(machine_spec());
  pmu::RegisterIo io(*rig.machine);
  pmu::WriteGuard guard(io);
  guard.own({pmu::msr(0, 0x2000)});
  io.write(pmu::msr(0, 0x2000), 7);  // behind the guard: read_saved does not read again
  EXPECT_EQ(guard.read_saved(pmu::msr(0, 0x2000)), 0u);
  EXPECT_EQ(guard.read_saved(pmu::msr(0, 0x2001)), io.read(pmu::msr(0, 0x2001)));  // not owned: read
  guard.write(pmu::msr(0, 0x2000), 5);
  EXPECT_EQ(guard.read_saved(pmu::msr(0, 0x2000)), 5u);
  pmu::WriteGuard journaled(io);
  journaled.own_as(pmu::msr(0, 0x2000), 9);  // an original from a journal is not the register's value
  EXPECT_EQ(journaled.read_saved(pmu::msr(0, 0x2000)), 5u);
}
