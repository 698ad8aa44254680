// The Skylake-SP/Cascade Lake CHA filter (the bundled clx-2s), from Linux
// arch/x86/events/intel/uncore_snbep.c, not from pmukit's data:
// - skx_cha_hw_config: an event whose code matches skx_uncore_cha_extra_regs uses the filter fields
//   of its idx (TOR_INSERTS 0x35 / TOR_OCCUPANCY 0x36: idx 0x8; LLC_LOOKUP 0x34 with umask 0x03:
//   idx 0x4), reg1->config = config1 & skx_cha_filter_mask(idx): idx 0x8 takes REM (bit 32), LOC
//   (33), ALL_OPC (35), NM (36), NOT_NM (37), OPC0 (41-50), OPC1 (51-60), NC (62), ISOC (63), not
//   TID (0-8) nor C6 (61); idx 0x4 takes STATE (17-26); other events no filter;
// - reg1->reg = HSWEP_C0_MSR_PMON_BOX_FILTER0 (0xe05) + HSWEP_CBO_MSR_OFFSET (0x10) * box;
//   hswep_cbox_enable_event writes the shared register's value, low 32 bits to FILTER0 and high 32
//   bits to FILTER0 + 1, then the control (hwc->config | SNBEP_PMON_CTL_EN, 1 << 22);
// - __snbep_cbox_get_constraint: events of one box share the filter field by field; an event that
//   wants another value in a field in use waits (counted in turn).
// CHA 1's registers: HSWEP_C0_MSR_PMON_BOX_CTL 0xe00, CTL0 0xe01, CTR0 0xe08, + 0x10.
#include <gtest/gtest.h>

#include "golden.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/multiplex.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/pmu/register_io.h"
#include "support/bundled_rig.h"
#include "support/test_support.h"

using namespace pmukit;
using test::event;
using test::msr_store;

namespace {

// skx_uncore_cha_formats_attr: filter_loc config1:33, filter_nm 36, filter_not_nm 37, filter_opc_0
// config1:41-50, filter_state5 config1:17-26, filter_tid4 config1:0-8; filter_c6 (61) is not in it.
constexpr std::uint64_t kLoc = 1ull << 33, kRem = 1ull << 32, kNm = 1ull << 36, kNotNm = 1ull << 37;
constexpr std::uint64_t opc0(std::uint64_t opc) {
  return opc << 41;
}
constexpr std::uint64_t kDrd = 0x202;  // the opcode perfmon's FILTER_VALUE 0x4043x selects (bits 9-18 of FILTER1)
constexpr std::uint64_t kTorInserts = 0x2135, kTorOccupancy = 0x2136, kLlcLookup = 0x0334;

const discovery::PmuUnit* unit(const discovery::DiscoveryResult& found, const std::string& name) {
  for (const auto& u : found.inventory.units)
    if (u.name == name && u.socket == 0) return &u;
  return nullptr;
}

}  // namespace

TEST(GoldenTrace, SkxChaFilterIsWrittenAsTheKernelDoesAndRestored) {
  test::TempDir dir;
  families::build_bundled("clx-2s", dir.path() / "m");
  Machine machine(MachineOptions{dir.path() / "m"});
  auto found = families::discover(machine);
  const auto* cha = unit(found, "uncore_cha_1");
  ASSERT_TRUE(cha);
  {  // Saved filter values the restore must put back.
    pmu::RegisterIo io(machine);
    io.write(pmu::msr(0, 0xe15), 0x1234);
    io.write(pmu::msr(0, 0xe16), 0x5678);
  }
  // TOR inserts of local DRd misses, with TID bits and C6 the event does not use; an LLC lookup
  // with a state filter (another field of the same filter).
  const std::uint64_t tor = opc0(kDrd) | kLoc | kNm | kNotNm | 0x1ff | 1ull << 61;
  const std::uint64_t state = 0x3ffull << 17;
  auto trace = test::run_fixed_events(machine, {{cha, {event(kTorInserts, tor), event(kLlcLookup, state)}}});
  // The kernel's value: FILTER1 = (0x202 << 9) | LOC (bit 1) | NM (4) | NOT_NM (5) = 0x40432, FILTER0
  // the state field.
  const std::uint64_t low = 0x7fe0000, high = 0x40432;
  std::vector<pmu::Access> want = {
      msr_store(0xe10, 0x100), msr_store(0xe10, 0x103),                              // init, frozen
      msr_store(0xe15, low),   msr_store(0xe16, high),  msr_store(0xe11, 0x402135),  // TOR inserts on counter 0
      msr_store(0xe15, low),   msr_store(0xe16, high),  msr_store(0xe12, 0x400334),  // LLC lookup on counter 1
      msr_store(0xe10, 0),     msr_store(0xe10, 0x100),                              // start, stop
      msr_store(0xe10, 0x100),                                                       // restore: frozen
  };
  for (unsigned i = 0; i < 4; ++i) want.push_back(msr_store(0xe11 + i, 0)), want.push_back(msr_store(0xe18 + i, 0));
  want.push_back(msr_store(0xe15, 0x1234));  // the filters as they were
  want.push_back(msr_store(0xe16, 0x5678));
  want.push_back(msr_store(0xe10, 0));
  EXPECT_EQ(test::trace_difference(trace, want), "");
}

// Events with other values in a filter field they share take turns; events that agree, use other
// fields or no filter count together.
TEST(KernelRules, SkxChaEventsWithDifferentFiltersTakeTurns) {
  test::BundledRig rig("clx-2s");
  pmu::Preflight pf(*rig.machine, platform::Database::builtin());
  const discovery::PmuUnit* cha = unit(rig.found, "uncore_cha_0");
  ASSERT_TRUE(cha);
  auto ev = [](std::uint64_t config, std::uint64_t config1) { return syntax::EncodedEvent{config, config1, 0, "e"}; };
  const auto local = ev(kTorInserts, opc0(kDrd) | kLoc), remote = ev(kTorInserts, opc0(kDrd) | kRem);
  auto v = pf.fit(*cha, {local, remote});
  ASSERT_TRUE(std::holds_alternative<pmu::DoesNotFit>(v));
  const auto& why = std::get<pmu::DoesNotFit>(v);
  EXPECT_TRUE(why.counters_short) << why.reason;
  EXPECT_NE(why.reason.find("one filter"), std::string::npos) << why.reason;
  using Sets = std::vector<std::vector<std::size_t>>;
  auto plan = [&](const std::vector<syntax::EncodedEvent>& events) {
    return pmu::plan_rotation(pf, *cha, events, std::vector<int>(events.size(), -1));
  };
  auto two = plan({local, remote});
  ASSERT_TRUE(pmu::ok(two.verdict));
  EXPECT_EQ(two.sets, (Sets{{0}, {1}}));
  // The clock uses no filter; the occupancy of local misses agrees with their inserts; the
  // lookup's state field is another field; config1 bits a TOR event does not use (TID) differ freely.
  auto mixed =
      plan({local, ev(0x00, 0), remote, ev(kTorOccupancy, opc0(kDrd) | kLoc | 0x3), ev(kLlcLookup, 0x3ffull << 17)});
  ASSERT_TRUE(pmu::ok(mixed.verdict));
  EXPECT_EQ(mixed.sets, (Sets{{0, 1, 3, 4}, {2}}));
  // perf's config1 values for these metrics lie outside the TOR fields: all mean filter 0, together.
  EXPECT_TRUE(pmu::ok(pf.fit(*cha, {ev(kTorInserts, 0x40432), ev(kTorInserts, 0x40431), ev(kTorOccupancy, 0x40433)})));
}
