// pmukit -- placing events on an Arm CMN mesh's counters with the kernel's rules.
#include "cmn_plan.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "pmukit/families/cmn/cmn_regs.h"

namespace pmukit::pmu {

namespace {

namespace cmn = regs::cmn;
using discovery::CmnNode;
using discovery::CmnUnit;

struct Target {
  unsigned node = 0, part = 0;
};

// The nodes (and parts) an event of `type` counts on, in the kernel's order: node types sorted,
// then logical ids (arm_cmn_node_cmp()); with bynodeid only the first whose id is `nodeid`.
std::vector<Target> targets(const CmnUnit& mesh, std::uint16_t type, bool bynodeid, std::uint16_t nodeid) {
  std::vector<std::tuple<std::uint16_t, std::uint16_t, Target>> found;
  for (unsigned i = 0; i < mesh.nodes.size(); ++i) {
    const CmnNode& n = mesh.nodes[i];
    const unsigned parts = cmn::has_second_part(n.type) ? 2 : 1;
    for (unsigned p = 0; p < parts; ++p) {
      if (cmn::event_type(n.type, p) != type || n.type == cmn::kTypeDtc || n.type == cmn::kTypeCfg) continue;
      if (bynodeid && n.id != nodeid) continue;
      found.emplace_back(p == 1 ? type : n.type, n.logid, Target{i, p});
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<Target> out;
  for (const auto& f : found) out.push_back(std::get<2>(f));
  if (bynodeid && out.size() > 1) out.resize(1);
  return out;
}

// CMN__PMEVCNT0_INPUT_SEL_*: a device's slot `index` on its port (modulo 2 with multiple DTMs, whose
// DTM n serves ports 2n and 2n+1), or the XP's own.
std::uint8_t input_select(const CmnUnit& mesh, const CmnNode& n, unsigned index) {
  if (n.is_xp()) return static_cast<std::uint8_t>(cmn::kInputSelXp + index);
  const unsigned port = mesh.multi_dtm ? n.port % 2 : n.port;
  return static_cast<std::uint8_t>(cmn::kInputSelDevice + index + (port << 4) + (n.dev << 2));
}

class Placer {
 public:
  Placer(const CmnUnit& mesh, const std::string& unit, CmnPlan& plan) : mesh_(mesh), unit_(unit), plan_(plan) {}

  std::optional<DoesNotFit> place(const syntax::EncodedEvent& e) {
    const RegValue<cmn::CmnConfig> config{e.config};
    const auto type = static_cast<std::uint16_t>(cmn::CmnConfig::Type::get(config));
    CmnEventPlan ev;
    if (type == cmn::kTypeDtc) return place_cycles(e, ev);
    if (type == cmn::kTypeWatchpoint)
      return DoesNotFit{fmt::format("event '{}': pmukit does not program CMN watchpoints", e.name),
                        "count it with --backend perf where the kernel's arm-cmn driver is loaded"};
    if (cmn::CmnConfig::OccupId::get(config))
      return DoesNotFit{fmt::format("event '{}': pmukit does not program CMN occupancy filters (occupid)", e.name),
                        "count it with --backend perf where the kernel's arm-cmn driver is loaded"};
    const bool bynodeid = cmn::CmnConfig::ByNodeId::get(config) != 0;
    const auto nodeid = static_cast<std::uint16_t>(cmn::CmnConfig::NodeId::get(config));
    auto on = targets(mesh_, type, bynodeid, nodeid);
    if (on.empty())
      return DoesNotFit{fmt::format("event '{}': {} has no node of type {:#x}{} (Linux arm-cmn.c arm_cmn_event_init: "
                                    "-EINVAL; pmu-discover --cmn lists the nodes)",
                                    e.name, unit_, type, bynodeid ? fmt::format(" with node id {}", nodeid) : ""),
                        "", true};
    ev.eventid = static_cast<std::uint16_t>(cmn::CmnConfig::EventId::get(config));
    ev.wide = type == cmn::kTypeXp && mesh_.part_name == "CMN-700";
    if (!ev.wide && ev.eventid > 0xff)
      return DoesNotFit{
          fmt::format("event '{}': event id {:#x} does not fit a node's 8-bit event select slot", e.name, ev.eventid),
          "", true};
    if (next_global_ == cmn::kDtcCounters)
      return short_of(fmt::format("{}: {} events but a DTC has {} global counters (Linux arm-cmn.c arm_cmn_event_add: "
                                  "CMN_DT_NUM_COUNTERS)",
                                  unit_, next_global_ + 1, cmn::kDtcCounters));
    ev.global = next_global_++;
    for (const auto& t : on)
      if (auto refused = take_local(e, t, ev)) return refused;
    plan_.events.push_back(std::move(ev));
    return std::nullopt;
  }

 private:
  // One cycles event per DTC (arm_cmn_event_add: the first DTC whose cycle counter is free).
  std::optional<DoesNotFit> place_cycles(const syntax::EncodedEvent& e, CmnEventPlan& ev) {
    if (cycles_ >= mesh_.dtcs.size())
      return short_of(fmt::format("{}: {} cycles events but the mesh has {} DTC cycle counter(s), one event each "
                                  "(Linux arm-cmn.c arm_cmn_event_add)",
                                  unit_, cycles_ + 1, mesh_.dtcs.size()));
    (void)e;
    ev.cycles = true;
    ev.domain = cycles_++;
    plan_.events.push_back(std::move(ev));
    return std::nullopt;
  }

  // The first local counter of the node's DTM no event has paired yet.
  std::optional<DoesNotFit> take_local(const syntax::EncodedEvent& e, const Target& t, CmnEventPlan& ev) {
    const CmnNode& n = mesh_.nodes[t.node];
    if (n.dtm < 0 || static_cast<std::size_t>(n.dtm) >= mesh_.dtms.size())
      return DoesNotFit{fmt::format("event '{}': node {} of {} has no DTM", e.name, n.id, unit_)};
    const auto dtm = static_cast<unsigned>(n.dtm);
    auto& used = paired_[dtm];
    if (used == cmn::kDtmCounters)
      return short_of(fmt::format("{}: more than {} events count on nodes of the DTM at XP ({},{}) (Linux arm-cmn.c "
                                  "arm_cmn_event_add: CMN_DTM_NUM_COUNTERS local counters per DTM)",
                                  unit_, cmn::kDtmCounters, n.x, n.y));
    CmnLocal c{t.node, t.part, dtm, used++, 0, {}, 0};
    c.input_sel = input_select(mesh_, n, c.index);
    auto& cfg = plan_.dtm_config.try_emplace(dtm, cmn::DtmPmuConfig::PmuEn::put(1)).first->second;
    cfg = cmn::dtm_pair(cfg, c.index, c.input_sel, ev.global);
    c.dtm_config = cfg;
    auto sel = std::find_if(plan_.selects.begin(), plan_.selects.end(),
                            [&](const CmnPlan::Select& s) { return s.node == t.node && s.part == t.part; });
    if (sel == plan_.selects.end()) sel = plan_.selects.insert(sel, {t.node, t.part, 0});
    sel->value = with_event_slot(sel->value, c.index, ev.eventid, ev.wide);
    c.event_select = sel->value;
    ev.locals.push_back(c);
    return std::nullopt;
  }

  static DoesNotFit short_of(std::string reason) { return DoesNotFit{std::move(reason), "", false, true}; }

  const CmnUnit& mesh_;
  const std::string& unit_;
  CmnPlan& plan_;
  unsigned next_global_ = 0, cycles_ = 0;
  std::map<unsigned, unsigned> paired_;  // DTM -> local counters taken
};

}  // namespace

std::optional<DoesNotFit> plan_cmn_events(const CmnUnit& mesh, const std::string& unit,
                                          const std::vector<syntax::EncodedEvent>& events, CmnPlan& plan) {
  plan = {};
  Placer placer(mesh, unit, plan);
  for (const auto& e : events)
    if (auto refused = placer.place(e)) return refused;
  return std::nullopt;
}

std::uint64_t with_event_slot(std::uint64_t previous, unsigned slot, std::uint16_t eventid, bool wide) {
  const unsigned bits = wide ? cmn::kWideEventSlotBits : cmn::kEventSlotBits;
  const std::uint64_t mask = ((1ull << bits) - 1) << (slot * bits);
  return (previous & ~mask) | (std::uint64_t{eventid} << (slot * bits) & mask);
}

}  // namespace pmukit::pmu
