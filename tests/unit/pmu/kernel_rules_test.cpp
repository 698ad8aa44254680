// The Linux drivers' rules the direct drivers enforce as the kernel does, on the bundled machines:
// Tegra410 PCIE filters (nvidia_cspmu.c pcie_v2_pmu_validate_event), the PCIE-TGT cycles event on
// the cycle counter (pcie_tgt_pmu_is_cycle_counter_event), and the DesignWare lane within the link
// width (dwc_pcie_pmu.c dwc_pcie_pmu_event_init). Config words are written from the drivers'
// format attributes, as literals.
#include <gtest/gtest.h>

#include "pmukit/platform/database.h"
#include "pmukit/pmu/multiplex.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/util/error.h"
#include "support/bundled_rig.h"

using namespace pmukit;

namespace {

// nvidia_cspmu.c pcie_v2_pmu_format_attrs: src_rp_mask config1:0-7, src_bdf config1:8-23,
// src_bdf_en config1:24; event config:0-32, cycles = 1 << 32.
constexpr std::uint64_t kBdfEn = 1ull << 24;
syntax::EncodedEvent pcie(std::uint64_t event, std::uint64_t rp_mask, std::uint64_t bdf, bool bdf_en) {
  return {event, rp_mask | bdf << 8 | (bdf_en ? kBdfEn : 0), 0, "e"};
}
const syntax::EncodedEvent kPcieCycles{1ull << 32, 0, 0, "cycles"};

struct Rules {
  test::BundledRig rig;
  pmu::Preflight pf;
  explicit Rules(const std::string& machine) : rig(machine), pf(*rig.machine, platform::Database::builtin()) {}
  const discovery::PmuUnit& unit(const std::string& name) const {
    for (const auto& u : rig.found.inventory.units)
      if (u.name == name) return u;
    throw Error(name + ": no such unit");
  }
  // The rule broken, or "" when the events fit; "capacity: ..." for a refusal that is no rule.
  std::string verdict(const std::string& u, const std::vector<syntax::EncodedEvent>& events) {
    auto v = pf.fit(unit(u), events);
    if (pmu::ok(v)) return "";
    const auto* d = std::get_if<pmu::DoesNotFit>(&v);
    if (!d) return "not DoesNotFit";
    return d->kernel_rule ? d->reason : "capacity: " + d->reason;
  }
};

}  // namespace

TEST(KernelRules, Tegra410PcieRootPortMaskAndBdfFilterExcludeEachOther) {
  Rules r("t410-2s");
  auto why = r.verdict("nvidia_pcie_pmu_0_rc_4", {pcie(0x2, 0x1, 0x0180, true)});
  EXPECT_NE(why.find("exclude each other"), std::string::npos) << why;
  EXPECT_NE(why.find("pcie_v2_pmu_validate_event"), std::string::npos) << why;
  // A root-port mask with src_bdf but no src_bdf_en is no BDF filter: allowed.
  EXPECT_EQ(r.verdict("nvidia_pcie_pmu_0_rc_4", {pcie(0x2, 0x1, 0x0180, false)}), "");
}

TEST(KernelRules, Tegra410PcieHasOneBdfFilterPerRc) {
  Rules r("t410-2s");
  const std::string rc = "nvidia_pcie_pmu_0_rc_4";
  // Only counted at the same time: pcie_v2_pmu_validate_event runs in arm_cspmu_get_event_idx, when
  // an event is put on a counter, so the kernel multiplexes events that disagree.
  auto v = r.pf.fit(r.unit(rc), {pcie(0x2, 0, 0x0180, true), pcie(0x2, 0, 0x0108, true)});
  ASSERT_TRUE(std::holds_alternative<pmu::DoesNotFit>(v));
  EXPECT_TRUE(std::get<pmu::DoesNotFit>(v).counters_short);
  // The Tegra410 guide's read-latency events on one BDF, and the cycle counter, which is exempt.
  EXPECT_EQ(r.verdict(rc, {pcie(0x4, 0, 0x0180, true), pcie(0x2, 0, 0x0180, true), kPcieCycles}), "");
  auto two = r.verdict(rc, {pcie(0x2, 0, 0x0180, true), pcie(0x2, 0, 0x0108, true)});
  EXPECT_NE(two.find("one BDF filter for all its counters"), std::string::npos) << two;
  // A root-port filtered event next to a BDF-filtered one: the kernel compares "no BDF" (0) too.
  auto mixed = r.verdict(rc, {pcie(0x2, 0x1, 0, false), pcie(0x2, 0, 0x0180, true)});
  EXPECT_NE(mixed.find("one BDF filter"), std::string::npos) << mixed;
  // BDF 00:00.0 filtered is a filter, not "none".
  EXPECT_NE(r.verdict(rc, {pcie(0x2, 0, 0, true), pcie(0x3, 0x1, 0, false)}).find("one BDF"), std::string::npos);
  // Other RCs are other PMUs.
  EXPECT_EQ(r.verdict("nvidia_pcie_pmu_0_rc_3", {pcie(0x2, 0, 0x0108, true)}), "");
}

// nvidia_cspmu.c pcie_v2_pmu_event_filter: a group member whose filter fields are all 0 takes the
// leader's filter when the leader filters by BDF, so {leader on a BDF, member without} counts both
// on that BDF; the same two events ungrouped are two filters (the member's "none" is BDF 0).
TEST(KernelRules, Tegra410PcieGroupMemberInheritsTheLeadersBdf) {
  Rules r("t410-2s");
  const std::string rc = "nvidia_pcie_pmu_0_rc_4";
  std::vector<syntax::EncodedEvent> events{pcie(0x2, 0, 0x0180, true), pcie(0x3, 0, 0, false),
                                           pcie(0x4, 0, 0x0180, true), pcie(0x1, 0, 0, false)};
  EXPECT_NE(r.verdict(rc, events).find("one BDF filter"), std::string::npos);
  // Events 0-1 are group 0, events 2-3 group 1.
  pmu::inherit_group_filters(r.pf, r.unit(rc), events, {0, 0, 1, 1});
  EXPECT_EQ(events[1].config1, 0x0180u << 8 | kBdfEn);
  EXPECT_EQ(events[3].config1, 0x0180u << 8 | kBdfEn);
  EXPECT_EQ(events[1].config, 0x3u);  // the event itself is untouched
  EXPECT_EQ(r.verdict(rc, events), "");

  // A member that names its own filter keeps it (and breaks the rule if it differs); a leader
  // without a BDF filter gives nothing; ungrouped events are left alone.
  std::vector<syntax::EncodedEvent> own{pcie(0x2, 0, 0x0180, true), pcie(0x3, 0x1, 0, false)};
  pmu::inherit_group_filters(r.pf, r.unit(rc), own, {0, 0});
  EXPECT_EQ(own[1].config1, 0x1u);
  EXPECT_NE(r.verdict(rc, own).find("one BDF filter"), std::string::npos);
  std::vector<syntax::EncodedEvent> rp_leader{pcie(0x2, 0x1, 0, false), pcie(0x3, 0, 0, false)};
  pmu::inherit_group_filters(r.pf, r.unit(rc), rp_leader, {0, 0});
  EXPECT_EQ(rp_leader[1].config1, 0u);
  std::vector<syntax::EncodedEvent> alone{pcie(0x2, 0, 0x0180, true), pcie(0x3, 0, 0, false)};
  pmu::inherit_group_filters(r.pf, r.unit(rc), alone, {-1, -1});
  EXPECT_EQ(alone[1].config1, 0u);
}

TEST(KernelRules, Tegra410PcieTgtCyclesIsTheCycleCounter) {
  Rules r("t410-2s");
  // nvidia_cspmu.c pcie_tgt_pmu_format_attrs: event config:0-2; cycles is event 4. The guide's five
  // events fit the block's general counters plus its cycle counter; a second cycles does not.
  const std::string tgt = "nvidia_pcie_tgt_pmu_0_rc_0";
  std::vector<syntax::EncodedEvent> five;
  for (std::uint64_t e : {0, 1, 2, 3, 4}) five.push_back({e, 0, 0, "e"});
  EXPECT_EQ(r.verdict(tgt, five), "");
  auto twice = r.verdict(tgt, {{4, 0, 0, "a"}, {4, 0, 0, "b"}});
  EXPECT_EQ(twice.rfind("capacity: ", 0), 0u) << twice;
}

TEST(KernelRules, DesignWareLaneMustBeWithinTheLinkWidth) {
  Rules r("yitian");
  // dwc_pcie_pmu.c format: eventid config:0-15, type config:16-19 (1 = lane), lane config:20-27.
  auto lane_event = [](std::uint64_t lane) { return syntax::EncodedEvent{0x700 | 1ull << 16 | lane << 20, 0, 0, "e"}; };
  const discovery::PmuUnit* x4 = nullptr;
  for (const auto& u : r.rig.found.inventory.units)
    if (const auto* d = u.as<discovery::DwcUnit>(); d && d->lanes == 4) x4 = &u;
  ASSERT_NE(x4, nullptr);
  EXPECT_EQ(r.verdict(x4->name, {lane_event(3)}), "");
  auto why = r.verdict(x4->name, {lane_event(4)});
  EXPECT_NE(why.find("beyond the 4 lanes of"), std::string::npos) << why;
  EXPECT_NE(why.find("dwc_pcie_pmu_event_init"), std::string::npos) << why;
  // Named as the user wrote the unit: the Anolis driver's pcie_bdf_<bdf> name of the same port.
  auto aliased = lane_event(4);
  aliased.name = "pcie_bdf_200/tx_memory_write,lane=4/";
  why = r.verdict(x4->name, {aliased});
  EXPECT_NE(why.find("beyond the 4 lanes of pcie_bdf_200's link"), std::string::npos) << why;
}

// Which lane events of one root port count together, from Linux dwc_pcie_pmu.c since 71396cfac97d
// (dwc_pcie_pmu_validate_add_lane_event, dwc_pcie_pmu_validate_group, dwc_pcie_pmu_event_add):
// group 6 and 7 events (id bits [11:8]) in parallel, each id once per root port whatever its lane;
// one time-based event. Ids from the kernel's event table: tx_memory_write 0x700, rx_memory_read
// 0x70c, rx_ack_dllp 0x602; the Alibaba Yitian 710 PCIe PMU guide's group 5 L1 entry 0x505.
TEST(KernelRules, DesignWareLaneEventsOfGroupsSixAndSevenCountTogetherEachIdOnce) {
  Rules r("yitian");
  auto lane_event = [](std::uint64_t id, std::uint64_t lane) {
    return syntax::EncodedEvent{id | 1ull << 16 | lane << 20, 0, 0, "dwc_rootport_3018/e/"};
  };
  const syntax::EncodedEvent time_based{0x21, 0, 0, "dwc_rootport_3018/rx_pcie_tlp_data_payload/"};
  const std::string port = "dwc_rootport_3018";
  // Different ids, on the same lane or on others, with the time-based counter: all at once.
  EXPECT_EQ(r.verdict(port, {lane_event(0x700, 0), lane_event(0x70c, 0), lane_event(0x602, 3), time_based}), "");
  // One id on two lanes: one bit per id in the kernel's bitmap, the lane is not part of it.
  auto twice = r.verdict(port, {lane_event(0x700, 0), lane_event(0x700, 1)});
  EXPECT_EQ(twice.rfind("capacity: dwc_rootport_3018: lane event 0x700 is asked twice", 0), 0u) << twice;
  EXPECT_NE(twice.find("dwc_pcie_pmu_validate_add_lane_event"), std::string::npos) << twice;
  // A group 0-5 event (the kernel refuses them) counts alone on its root port.
  auto alone = r.verdict(port, {lane_event(0x505, 0), lane_event(0x700, 0)});
  EXPECT_EQ(alone.rfind("capacity: dwc_rootport_3018: a lane event outside groups 6 and 7 counts alone", 0), 0u)
      << alone;
  EXPECT_EQ(r.verdict(port, {lane_event(0x505, 0), time_based}), "");
  // One time-based counter.
  auto two_time = r.verdict(port, {time_based, {0x20, 0, 0, "dwc_rootport_3018/tx/"}});
  EXPECT_EQ(two_time.rfind("capacity: dwc_rootport_3018: a root port has one time-based counter", 0), 0u) << two_time;
  EXPECT_NE(two_time.find("dwc_pcie_pmu_validate_group"), std::string::npos) << two_time;
}

// Counters short only: the rotation puts the second tx_memory_write in a set of its own and the
// other lane events with the first, as perf schedules what dwc_pcie_pmu_event_add accepts.
TEST(KernelRules, DesignWareSameLaneEventTwiceTakesTurnsTheRestCountTogether) {
  Rules r("yitian");
  auto lane_event = [](std::uint64_t id, std::uint64_t lane) {
    return syntax::EncodedEvent{id | 1ull << 16 | lane << 20, 0, 0, "dwc_rootport_3018/e/"};
  };
  const std::vector<syntax::EncodedEvent> events = {lane_event(0x700, 0), lane_event(0x70c, 1), lane_event(0x700, 2)};
  auto plan = pmu::plan_rotation(r.pf, r.unit("dwc_rootport_3018"), events, {-1, -1, -1});
  ASSERT_TRUE(pmu::ok(plan.verdict));
  ASSERT_EQ(plan.sets.size(), 2u);
  EXPECT_EQ(plan.sets[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(plan.sets[1], (std::vector<std::size_t>{2}));
}

// Linux arm_cspmu.c arm_cspmu_get_event_idx calls pcie_v2_pmu_validate_event for each event it puts
// on a counter, comparing it with the leader of the first event there: ungrouped events with
// different BDF filters (or one without, BDF 0) are never on the counters together, so perf counts
// them in turn; in a {...} group (arm_cspmu_validate_group) the same refusal refuses the group.
TEST(KernelRules, Tegra410PcieEventsOfDifferentBdfsTakeTurns) {
  Rules r("t410-2s");
  const auto& rc = r.unit("nvidia_pcie_pmu_0_rc_4");
  auto plan = [&](std::vector<syntax::EncodedEvent> events, std::vector<int> group) {
    pmu::inherit_group_filters(r.pf, rc, events, group);
    return pmu::plan_rotation(r.pf, rc, events, group);
  };
  using Sets = std::vector<std::vector<std::size_t>>;
  auto two = plan({pcie(0x2, 0, 0x4100, true), pcie(0x2, 0, 0x4101, true)}, {-1, -1});
  ASSERT_TRUE(pmu::ok(two.verdict)) << pmu::describe(two.verdict, rc.name);
  EXPECT_EQ(two.sets, (Sets{{0}, {1}}));
  // An event without a filter and a BDF event: BDF 0 against 0x4100, two turns; the same BDF twice
  // shares one, a root-port event and an unfiltered one share the other (both BDF 0).
  auto mixed =
      plan({pcie(0x2, 0, 0x4100, true), pcie(0x3, 0, 0, false), pcie(0x4, 0, 0x4100, true), pcie(0x0, 0x2, 0, false)},
           {-1, -1, -1, -1});
  ASSERT_TRUE(pmu::ok(mixed.verdict));
  EXPECT_EQ(mixed.sets, (Sets{{0, 2}, {1, 3}}));
  // The cycle counter is exempt: it goes with the first set.
  auto cycles = plan({pcie(0x2, 0, 0x4100, true), pcie(0x2, 0, 0x4101, true), kPcieCycles}, {-1, -1, -1});
  EXPECT_EQ(cycles.sets, (Sets{{0, 2}, {1}}));
  // Grouped: the leader's BDF is the group's; a member that names another is refused.
  auto paired = plan({pcie(0x2, 0, 0x4100, true), pcie(0x3, 0, 0, false), kPcieCycles}, {0, 0, 0});
  EXPECT_EQ(paired.sets, (Sets{{0, 1, 2}}));
  auto refused = plan({pcie(0x2, 0, 0x4100, true), pcie(0x2, 0, 0x4101, true)}, {0, 0});
  ASSERT_TRUE(std::holds_alternative<pmu::DoesNotFit>(refused.verdict));
  const auto& why = std::get<pmu::DoesNotFit>(refused.verdict);
  EXPECT_TRUE(why.kernel_rule);
  EXPECT_NE(why.reason.find("the group {"), std::string::npos) << why.reason;
  EXPECT_NE(why.reason.find("one BDF filter"), std::string::npos) << why.reason;
  // A leader without a BDF filter gives its members none: a BDF member is refused.
  auto unfiltered_leader = plan({pcie(0x3, 0, 0, false), pcie(0x2, 0, 0x4100, true)}, {0, 0});
  EXPECT_FALSE(pmu::ok(unfiltered_leader.verdict));
}
