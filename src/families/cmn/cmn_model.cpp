// pmukit -- simulated Arm CMN mesh counting: each DTM's four 16-bit local counters count the event
// their input select names (a device's or the XP's event select slot), carry into the DTC global
// counter they are paired with, and the DTC's 40-bit cycle counter counts the mesh clock, while
// DTC_CTL.DT_EN and PMCR.PMU_EN of the domain and of DTC 0 are set. The DTC's clock is gated while
// its domain idles unless DTC_CTL.CG_DISABLE is set: then the cycle counter sees only the cycles
// the clock ran ("cycles_gated", a fraction of "cycles"), with it every cycle. Register fields are
// cmn_regs.h's; rates are looked up as "TYPE:EVENTID@NODEID", then "TYPE:EVENTID" of the node's event
// type (the kernel's type and eventid terms, lower-case hex), and "cycles" (platforms/sim/rates.json).
#include <fmt/format.h>

#include "cmn_model.h"
#include "pmukit/families/cmn/cmn_layout.h"
#include "pmukit/families/cmn/cmn_regs.h"
#include "pmukit/families/cmn/cmn_unit.h"

namespace pmukit::sim {

namespace {

namespace cmn = regs::cmn;
using discovery::CmnNode;
using discovery::CmnUnit;
using Role = pmu::CmnRole;

class CmnModel : public UnitModel {
 public:
  CmnModel(const pmu::UnitLayout& layout, const Rates& rates)
      : l_(layout), mesh_(*layout.unit->as<CmnUnit>()), kind_(layout.unit->pmu_kind), rates_(rates),
        cycles_(mesh_.dtcs.size()), locals_(mesh_.dtms.size() * cmn::kDtmCounters) {}

  void step(Registers& io, std::uint64_t dt_ns) override {
    if (!dt_ns) return;
    std::vector<bool> on(mesh_.dtcs.size());
    const bool master = cmn::DtcPmcr::PmuEn::get(read_as<cmn::DtcPmcr>(io, l_.at(Role::PmuControl, 0))) != 0;
    for (unsigned d = 0; d < mesh_.dtcs.size(); ++d) {
      const auto dtc_ctl = read_as<cmn::DtcCtl>(io, l_.at(Role::DtcControl, d));
      on[d] = master && cmn::DtcCtl::DtEn::get(dtc_ctl) &&
              cmn::DtcPmcr::PmuEn::get(read_as<cmn::DtcPmcr>(io, l_.at(Role::PmuControl, d)));
      if (!on[d]) continue;
      const pmu::Reg& cc = l_.at(Role::CycleCounter, d);
      const char* clock = cmn::DtcCtl::CgDisable::get(dtc_ctl) ? "cycles" : "cycles_gated";
      const std::uint64_t inc = cycles_[d].advance(rates_.lookup(l_.unit->name, kind_, clock), dt_ns);
      io.write(cc, (io.read(cc) + inc) & ((1ull << cmn::kCycleCounterBits) - 1));
    }
    for (unsigned i = 0; i < mesh_.dtms.size(); ++i) {
      const unsigned domain = domain_of(i);
      if (domain < on.size() && on[domain]) count_dtm(io, i, domain, dt_ns);
    }
  }

 private:
  unsigned domain_of(unsigned dtm) const {
    const int d = mesh_.nodes[mesh_.xps[mesh_.dtms[dtm].xp].node].dtc;
    return d < 0 ? 0 : static_cast<unsigned>(d);
  }

  void count_dtm(Registers& io, unsigned i, unsigned domain, std::uint64_t dt_ns) {
    const auto cfg = read_as<cmn::DtmPmuConfig>(io, l_.at(Role::DtmConfig, i));
    if (!cmn::DtmPmuConfig::PmuEn::get(cfg)) return;
    const pmu::Reg& counters = l_.at(Role::DtmCounter, i);
    std::uint64_t value = io.read(counters);
    for (unsigned n = 0; n < cmn::kDtmCounters; ++n) {
      const Rate rate = source_rate(io, i, cmn::dtm_input_sel(cfg, n));
      const std::uint64_t inc = locals_[i * cmn::kDtmCounters + n].advance(rate, dt_ns);
      if (!inc) continue;
      const unsigned shift = n * cmn::kDtmCounterBits;
      const std::uint64_t local = (value >> shift & 0xffff) + inc;
      value = (value & ~(0xffffull << shift)) | (local & 0xffff) << shift;
      if (cmn::dtm_is_paired(cfg, n)) carry(io, domain, cmn::dtm_global_num(cfg, n), local >> cmn::kDtmCounterBits);
    }
    io.write(counters, value);
  }

  void carry(Registers& io, unsigned domain, std::uint64_t global, std::uint64_t carries) {
    if (!carries) return;
    const pmu::Reg& r = l_.at(Role::Counter, static_cast<unsigned>(global), domain);
    io.write(r, (io.read(r) + carries) & 0xffffffffull);
  }

  // The rate of what input select `sel` of DTM `i` names: 0 for watchpoints and empty slots.
  Rate source_rate(Registers& io, unsigned i, std::uint64_t sel) {
    const auto& dtm = mesh_.dtms[i];
    const auto& xp = mesh_.xps[dtm.xp];
    if (sel >= cmn::kInputSelDevice) {
      const unsigned port = static_cast<unsigned>((sel >> 4) - 1) + (mesh_.multi_dtm ? 2 * dtm.index : 0);
      const unsigned dev = static_cast<unsigned>(sel >> 2 & 3), slot = static_cast<unsigned>(sel & 3);
      // Nodes of one CHI device share its id (a CCG's CCRA, CCHA and CCLA): each selects into the slot.
      // One node's rate stays exact (a scenario's documented count over its span); a sum is per second.
      Rate rate;
      bool any = false;
      for (unsigned d : xp.devices) {
        if (mesh_.nodes[d].port != port || mesh_.nodes[d].dev != dev) continue;
        const Rate r = node_rate(io, d, slot);
        if (r.per_second() == 0) continue;
        rate = any ? Rate::of(rate.per_second() + r.per_second()) : r;
        any = true;
      }
      return rate;
    }
    if (sel >= cmn::kInputSelXp) return node_rate(io, xp.node, static_cast<unsigned>(sel - cmn::kInputSelXp));
    return {};
  }

  // A node's event select slot: the first of its parts whose slot is not 0.
  Rate node_rate(Registers& io, unsigned node, unsigned slot) {
    const CmnNode& n = mesh_.nodes[node];
    for (unsigned part = 0; part < 2; ++part) {
      const auto* r = l_.find(Role::EventSelect, node, part);
      if (!r) break;
      const unsigned bits = r->reg.width == 64 ? cmn::kWideEventSlotBits : cmn::kEventSlotBits;
      const std::uint64_t id = io.read(r->reg) >> (slot * bits) & ((1ull << bits) - 1);
      if (!id) continue;
      // A rule for this node ("TYPE:EVENTID@NODEID") before the rule for every node of the type.
      const std::string code = fmt::format("{:#x}:{:#x}", cmn::event_type(n.type, part), id);
      const std::string mine = fmt::format("{}@{}", code, n.id);
      return rates_.lookup(l_.unit->name, kind_, rates_.names(l_.unit->name, kind_, mine) ? mine : code);
    }
    return {};
  }

  const pmu::UnitLayout& l_;
  const CmnUnit& mesh_;
  std::string kind_;
  const Rates& rates_;
  std::vector<Accumulator> cycles_, locals_;
};

}  // namespace

std::unique_ptr<UnitModel> make_cmn_model(const pmu::UnitLayout& layout, const Rates& rates) {
  if (layout.count(Role::DtmConfig) == 0 || layout.count(Role::PmuControl) == 0) return nullptr;
  return std::make_unique<CmnModel>(layout, rates);
}

}  // namespace pmukit::sim
