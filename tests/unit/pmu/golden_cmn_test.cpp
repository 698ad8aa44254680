// Golden write trace and the kernel's limits for the Arm CMN driver, on a small hand-made CMN-700
// mesh (two crosspoints, one DTC). Every expected offset and value is written here from Linux
// drivers/perf/arm-cmn.c: CMN_PMU_OFFSET 0x2000; CMN_DTM_PMU_CONFIG 0x210 with PMU_EN bit 0,
// CMN__PMEVCNT_PAIRED(n) bit 4+n, the global number at 16+4n and the input select byte at 32+8n
// (CMN__PMEVCNT0_INPUT_SEL_DEV 0x10 + n + port<<4 + dev<<2); CMN_DT_DTC_CTL 0xa00 (DT_EN 1);
// CMN_DT_PMEVCNT(n) 0x2000 + ((n/2)*4 + n%2)*4 started from CMN_COUNTER_INIT 0x80000000;
// CMN_DT_PMCCNTR 0x2040 from CMN_CC_INIT 0x8000000000, with DTC_CTL = DT_EN | CG_DISABLE (bit 10)
// first and DT_EN alone when it stops (arm_cmn_event_start/stop since "perf/arm-cmn: Make cycle
// counts less surprising"); CMN_DT_PMCR 0x2100 (PMU_EN 1); the event
// select at the node's PMU page (+8 for a CCLA, CMN_CCLA_PMU_EVENT_SEL), one byte per slot
// (arm_cmn_set_event_sel_lo()). The order is arm_cmn_event_add()'s for each event in turn: the DTM
// configs node by node, the DTC counter, then the event selects (arm_cmn_event_start()).
#include <gtest/gtest.h>

#include <map>

#include "golden.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/snapshot/builder.h"
#include "support/test_support.h"

using namespace pmukit;
using test::event;
using test::mmio_store;

namespace {

constexpr std::uint64_t kBase = 0x5000'0000, kSize = 0x4'0000;
constexpr std::uint64_t kXp0 = 0x10000, kXp1 = 0x20000, kDtc = 0x14000, kCcla = 0x18000, kHnf0 = 0x24000,
                        kHnf1 = 0x1c000;

discovery::CmnNode node(std::uint16_t type, std::uint16_t id, std::uint16_t logid, std::uint64_t offset, int xp,
                        unsigned port, unsigned dev, int dtm) {
  discovery::CmnNode n;
  n.type = type, n.id = id, n.logid = logid, n.offset = offset, n.xp = xp, n.port = port, n.dev = dev, n.dtm = dtm;
  n.y = static_cast<unsigned>(xp), n.dtc = 0;
  return n;
}

// A 1x2 mesh: XP 0 with the DTC (port 0, device 1), a CCLA (port 1, device 1) and HN-F logical id 1
// (port 0, device 0); XP 1 with HN-F logical id 0 (port 1, device 0).
struct CmnRig {
  test::TempDir dir;
  discovery::PmuUnit unit;
  std::unique_ptr<Machine> machine;
  CmnRig() {
    discovery::CmnUnit u;
    u.base = kBase, u.size = kSize, u.walked = true, u.part = 0x43c, u.part_name = "CMN-700";
    u.mesh_x = 1, u.mesh_y = 2;
    u.nodes = {node(0x6, 0x0, 0, kXp0, 0, 0, 0, 0),  node(0x6, 0x8, 1, kXp1, 1, 0, 0, 1),
               node(0x3, 0x1, 0, kDtc, 0, 0, 1, 0),  node(0x105, 0x5, 0, kCcla, 0, 1, 1, 0),
               node(0x5, 0xc, 0, kHnf0, 1, 1, 0, 1), node(0x5, 0x0, 1, kHnf1, 0, 0, 0, 0)};
    u.xps.resize(2);
    u.xps[0].node = 0, u.xps[0].devices = {2, 3, 5}, u.xps[0].dtms = {0};
    u.xps[1].node = 1, u.xps[1].devices = {4}, u.xps[1].dtms = {1};
    u.dtms = {{0, 0, kXp0 + 0x2000}, {1, 0, kXp1 + 0x2000}};
    u.dtcs = {{0, 2, kDtc}};
    unit.family = discovery::Family::Cmn;
    unit.name = "arm_cmn_0";
    unit.pmu_kind = "arm_cmn";
    unit.detail = u;
    snapshot::SnapshotBuilder b(dir.path());
    b.write_phys32(kBase + kSize - 4, 0);
    machine = std::make_unique<Machine>(MachineOptions{dir.path()});
  }
};

std::uint64_t cfg(std::uint16_t type, std::uint16_t eventid, int nodeid = -1) {
  std::uint64_t c = type | std::uint64_t{eventid} << 16;
  if (nodeid >= 0) c |= 1ull << 31 | std::uint64_t(nodeid) << 32;
  return c;
}

}  // namespace

// ccla_tx_cxs on one node, hnf_cache_miss over both HN-Fs, dtc_cycles. Where pmukit differs: PMCR
// is started with PMU_EN alone (no OVFL_INTR_EN: no interrupt handler outside the kernel), and
// DTC_CTL.DT_EN is set when programming starts rather than at probe.
TEST(GoldenTrace, CmnDtmCountersPairedIntoDtcCounters) {
  CmnRig rig;
  auto trace = test::run_fixed_events(
      *rig.machine, {{&rig.unit, {event(cfg(0x105, 0x22, 0x5)), event(cfg(0x5, 0x1)), event(cfg(0x3, 0))}}});
  const std::vector<pmu::Access> want = {
      mmio_store(kBase + kDtc + 0xa00, 32, 1),   // DTC_CTL.DT_EN (arm_cmn_init_dtc)
      mmio_store(kBase + kDtc + 0x2100, 32, 0),  // PMCR: stopped (arm_cmn_set_state)
      // ccla_tx_cxs: global counter 0; the CCLA (port 1, device 1) on XP 0's DTM counter 0.
      mmio_store(kBase + kXp0 + 0x2210, 64, 0x24'0000'0011),  // input 0x10+0+0x10+0x4, paired 0, PMU_EN
      mmio_store(kBase + kDtc + 0x2000, 32, 0x80000000), mmio_store(kBase + kCcla + 0x2008, 32, 0x22),
      // hnf_cache_miss: global counter 1; HN-F logid 0 first (XP 1, port 1: input 0x20), then
      // logid 1 (XP 0, port 0, device 0, counter 1: input 0x11), global number 1 at bits 16+4n.
      mmio_store(kBase + kXp1 + 0x2210, 64, 0x20'0001'0011), mmio_store(kBase + kXp0 + 0x2210, 64, 0x1124'0010'0031),
      mmio_store(kBase + kDtc + 0x2004, 32, 0x80000000), mmio_store(kBase + kHnf0 + 0x2000, 32, 0x01),
      mmio_store(kBase + kHnf1 + 0x2000, 32, 0x0100),         // slot 1
      mmio_store(kBase + kDtc + 0xa00, 32, 0x401),            // dtc_cycles: DT_EN | CG_DISABLE,
      mmio_store(kBase + kDtc + 0x2040, 64, 0x80'0000'0000),  // then the cycle counter
      mmio_store(kBase + kDtc + 0x2100, 32, 1),               // start
      mmio_store(kBase + kDtc + 0x2100, 32, 0),               // stop (arm_cmn_set_state),
      mmio_store(kBase + kDtc + 0xa00, 32, 1),                // the DTC back to clock gating
      mmio_store(kBase + kDtc + 0x2100, 32, 0),               // restore: quiesced first
  };
  std::vector<pmu::WriteRecord> head(trace.begin(), trace.begin() + std::min(trace.size(), want.size()));
  EXPECT_EQ(test::trace_difference(head, want), "");
  // Then every register written is put back to what it held (0 in this image), PMCR last.
  std::map<std::uint64_t, std::uint64_t> put_back;
  for (std::size_t i = want.size(); i < trace.size(); ++i)
    put_back[pmu::location(trace[i].access.at)] = trace[i].access.value;
  for (const auto& w : want) {
    const auto addr = pmu::location(w.at);
    ASSERT_TRUE(put_back.count(addr)) << fmt::format("{:#x} not restored", addr);
    EXPECT_EQ(put_back[addr], 0u) << fmt::format("{:#x}", addr);
  }
  ASSERT_FALSE(trace.empty());
  EXPECT_EQ(pmu::location(trace.back().access.at), kBase + kDtc + 0x2100);
}

// What arm_cmn_event_init() and arm_cmn_event_add() refuse, and what only needs turns.
TEST(CmnKernelRules, CountersPerDtmPerDtcCyclesAndNodes) {
  CmnRig rig;
  pmu::Preflight pf(*rig.machine, platform::Database::builtin());
  auto verdict = [&](std::vector<syntax::EncodedEvent> events) { return pf.fit(rig.unit, events); };
  auto refusal = [&](std::vector<syntax::EncodedEvent> events) -> pmu::DoesNotFit {
    auto v = verdict(std::move(events));
    const auto* d = std::get_if<pmu::DoesNotFit>(&v);
    return d ? *d : pmu::DoesNotFit{"fits"};
  };
  // Four events on the CCLA fill XP 0's DTM (4 local counters); a fifth is short of counters.
  std::vector<syntax::EncodedEvent> four(4, event(cfg(0x105, 0x21, 0x5)));
  EXPECT_TRUE(pmu::ok(verdict(four)));
  four.push_back(event(cfg(0x5, 0x1, 0x0)));  // HN-F on XP 0: the same DTM
  auto dtm = refusal(four);
  EXPECT_TRUE(dtm.counters_short) << dtm.reason;
  EXPECT_NE(dtm.reason.find("CMN_DTM_NUM_COUNTERS"), std::string::npos) << dtm.reason;
  // Eight events over both DTMs fit the DTC's 8 global counters; a ninth does not.
  std::vector<syntax::EncodedEvent> eight(4, event(cfg(0x105, 0x21, 0x5)));
  for (int i = 0; i < 4; ++i) eight.push_back(event(cfg(0x5, 0x1, 0xc)));
  EXPECT_TRUE(pmu::ok(verdict(eight)));
  eight.push_back(event(cfg(0x3, 0)));  // cycles take no global counter
  EXPECT_TRUE(pmu::ok(verdict(eight)));
  eight.push_back(event(cfg(0x5, 0x2, 0xc)));
  auto dtc = refusal(eight);
  EXPECT_TRUE(dtc.counters_short) << dtc.reason;
  EXPECT_NE(dtc.reason.find("CMN_DT_NUM_COUNTERS"), std::string::npos) << dtc.reason;
  // One cycles event per DTC.
  auto cycles = refusal({event(cfg(0x3, 0)), event(cfg(0x3, 0))});
  EXPECT_TRUE(cycles.counters_short) << cycles.reason;
  // A node id no node of the type has: the kernel's -EINVAL, a rule no backend gets round.
  auto missing = refusal({event(cfg(0x105, 0x21, 413))});
  EXPECT_TRUE(missing.kernel_rule) << missing.reason;
  EXPECT_FALSE(missing.counters_short);
  EXPECT_NE(missing.reason.find("node id 413"), std::string::npos) << missing.reason;
  auto no_type = refusal({event(cfg(0x10, 0x1))});  // no MTSX on this mesh
  EXPECT_TRUE(no_type.kernel_rule) << no_type.reason;
  // Occupancy filters are not programmed here: refused, but not as a kernel rule (perf counts them).
  auto occup = refusal({event(cfg(0x5, 0xf) | 1ull << 27)});
  EXPECT_FALSE(occup.kernel_rule);
  EXPECT_FALSE(occup.counters_short);
  EXPECT_NE(occup.reason.find("occupid"), std::string::npos) << occup.reason;
}

// With the kernel's arm-cmn driver bound to the mesh, direct access is refused in one line that
// says why (CONFIG_IO_STRICT_DEVMEM keeps /dev/mem off the region it claimed) and where to count.
TEST(CmnKernelRules, KernelDriverLoadedSendsCountingToPerf) {
  CmnRig rig;
  std::get<discovery::CmnUnit>(rig.unit.detail).kernel_pmu = "arm_cmn_0";
  pmu::Preflight pf(*rig.machine, platform::Database::builtin());
  const auto& v = pf.access(rig.unit);
  const auto* no = std::get_if<pmu::NoDriver>(&v);
  ASSERT_NE(no, nullptr) << pmu::describe(v, rig.unit.name);
  EXPECT_EQ(no->why.find('\n'), std::string::npos);
  EXPECT_NE(no->why.find("CONFIG_IO_STRICT_DEVMEM"), std::string::npos) << no->why;
  EXPECT_NE(no->why.find("--backend perf"), std::string::npos) << no->why;
}

// Multiplexing: the set placed once when the turns are planned (DirectSession::plan_turns) is
// programmed at its turn with the stores of arm_cmn_event_del() and arm_cmn_event_add() for a
// fresh set -- the previous set's event selects cleared and its DTMs unpaired, then each event of
// the new one in turn -- and reprogramming the same set (placed there and then) stores the same.
// hnf events 0x2 and 0x3 over both HN-Fs: the first on local counter 0 of each DTM and global 0,
// the second on local counter 1 and global 1; each HN-F's event select holds both (slots 0, 1).
TEST(GoldenTrace, CmnTurnStoresWhatProgrammingTheSetStores) {
  const std::vector<syntax::EncodedEvent> first = {event(cfg(0x105, 0x22, 0x5)), event(cfg(0x5, 0x1)),
                                                   event(cfg(0x3, 0))};
  const std::vector<syntax::EncodedEvent> second = {event(cfg(0x5, 0x2)), event(cfg(0x5, 0x3))};
  const std::vector<pmu::Access> want = {
      mmio_store(kBase + kDtc + 0x2100, 32, 0),  // stop; the first set's dtc_cycles stops: clock gating on
      mmio_store(kBase + kDtc + 0xa00, 32, 1), mmio_store(kBase + kDtc + 0xa00, 32, 1),
      mmio_store(kBase + kDtc + 0x2100, 32, 0),
      // The first set's event selects cleared, node by node as it took them; its DTMs unpaired.
      mmio_store(kBase + kCcla + 0x2008, 32, 0), mmio_store(kBase + kHnf0 + 0x2000, 32, 0),
      mmio_store(kBase + kHnf1 + 0x2000, 32, 0), mmio_store(kBase + kXp0 + 0x2210, 64, 1),
      mmio_store(kBase + kXp1 + 0x2210, 64, 1),
      // event 0x2: HN-F logid 0 (XP 1, port 1: input 0x20), logid 1 (XP 0, port 0: input 0x10).
      mmio_store(kBase + kXp1 + 0x2210, 64, 0x20'0000'0011), mmio_store(kBase + kXp0 + 0x2210, 64, 0x10'0000'0011),
      mmio_store(kBase + kDtc + 0x2000, 32, 0x80000000), mmio_store(kBase + kHnf0 + 0x2000, 32, 0x02),
      mmio_store(kBase + kHnf1 + 0x2000, 32, 0x02),
      // event 0x3: counter 1 of each DTM (input 0x21 / 0x11 at bits 40, global 1 at bits 20, paired 5).
      mmio_store(kBase + kXp1 + 0x2210, 64, 0x2120'0010'0031), mmio_store(kBase + kXp0 + 0x2210, 64, 0x1110'0010'0031),
      mmio_store(kBase + kDtc + 0x2004, 32, 0x80000000), mmio_store(kBase + kHnf0 + 0x2000, 32, 0x0302),
      mmio_store(kBase + kHnf1 + 0x2000, 32, 0x0302), mmio_store(kBase + kDtc + 0x2100, 32, 1),  // start
  };
  // The stores of a session's second set, by turn or by reprogram, from the turn's first store.
  auto second_set = [&](bool by_turn) {
    CmnRig rig;
    std::vector<pmu::WriteRecord> trace;
    pmu::SessionOptions options;
    options.trace = &trace;
    pmu::DirectSession s(*rig.machine, {{&rig.unit, first}}, platform::Database::builtin(), options);
    if (by_turn) s.plan_turns(0, {first, second});
    s.start();
    const std::size_t from = trace.size();
    if (by_turn)
      s.turn(0, 1);
    else
      s.reprogram(0, second);
    std::vector<pmu::WriteRecord> stores(trace.begin() + static_cast<std::ptrdiff_t>(from), trace.end());
    for (std::size_t i = 0; i < stores.size(); ++i) stores[i].order = i;
    s.restore();
    return stores;
  };
  EXPECT_EQ(test::trace_difference(second_set(true), want), "");
  EXPECT_EQ(test::trace_difference(second_set(false), want), "");
}
