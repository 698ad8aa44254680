// pmukit -- simulated CoreSight PMU: PMCR E/P/C, PMCNTENSET/CLR banks, PMEVTYPER-selected rates,
// the cycle counter, counter width and wrap, and PMOVSCLR overflow flags.
//
// A polling simulator cannot see a write of the value a register already holds, so the
// write-one registers use conventions pmukit's driver keeps: PMCNTENSET reads the enable mask and
// PMCNTENCLR reads 0 (any non-zero value is a clear request); PMOVSCLR holds the overflow flags
// plus a marker in a bit no counter uses, so writing back the counters' flags is always a change.
// A block whose banks have no spare bit gets no overflow flags.
#include "coresight_model.h"
#include "pmukit/families/coresight/coresight_layout.h"
#include "pmukit/families/coresight/coresight_regs.h"

namespace pmukit::sim {

namespace {

using namespace regs::coresight;
using Role = pmu::CoreSightRole;

class CoreSightModel : public UnitModel {
 public:
  CoreSightModel(const pmu::UnitLayout& layout, const Rates& rates)
      : l_(layout), kind_(layout.unit->pmu_kind), rates_(rates), width_(layout.unit->counter_width),
        counters_(layout.indices(Role::Counter)), banks_(static_cast<unsigned>(layout.count(Role::EnableSet))) {
    if (layout.count(Role::CycleCounter)) counters_.push_back(kCycleCounter);
    enabled_.assign(banks_, 0);
    overflow_.assign(banks_, 0);
    marker_.assign(banks_, 0);
    std::vector<std::uint32_t> used(banks_, 0);
    for (unsigned n : counters_) used[n / kCountersPerBank] |= 1u << (n % kCountersPerBank);
    for (unsigned b = 0; b < banks_; ++b) marker_[b] = high_free(used[b]);
    acc_.resize(counters_.size());
  }

  void step(Registers& io, std::uint64_t dt_ns) override {
    const pmu::Reg& pmcr_reg = l_.at(Role::PmuControl);
    auto pmcr = read_as<Pmcr>(io, pmcr_reg);
    if (Pmcr::P::get(pmcr) || Pmcr::C::get(pmcr)) {
      for (std::size_t i = 0; i < counters_.size(); ++i) {
        bool cycle = counters_[i] == kCycleCounter;
        if (cycle ? Pmcr::C::get(pmcr) : Pmcr::P::get(pmcr)) io.write(counter(counters_[i]), 0), acc_[i].reset();
      }
      pmcr = Pmcr::C::clear(Pmcr::P::clear(pmcr));
      io.write(pmcr_reg, pmcr.raw);
    }
    for (unsigned b = 0; b < banks_; ++b) {
      const pmu::Reg &set = l_.at(Role::EnableSet, b), &clr = l_.at(Role::EnableClear, b);
      auto requested = static_cast<std::uint32_t>(io.read(set));
      if (requested != enabled_[b]) enabled_[b] |= requested;
      if (auto cleared = static_cast<std::uint32_t>(io.read(clr))) enabled_[b] &= ~cleared;
      io.write(set, enabled_[b]);
      io.write(clr, 0);
      auto ovs = static_cast<std::uint32_t>(io.read(l_.at(Role::OverflowClear, b)));
      if (ovs != shown(b)) overflow_[b] &= ~ovs;  // write-one-to-clear
    }
    if (Pmcr::E::get(pmcr) && dt_ns) count(io, dt_ns);
    for (unsigned b = 0; b < banks_; ++b) io.write(l_.at(Role::OverflowClear, b), shown(b));
  }

 private:
  void count(Registers& io, std::uint64_t dt_ns) {
    const std::uint64_t mask = low_mask(width_);
    for (std::size_t i = 0; i < counters_.size(); ++i) {
      unsigned n = counters_[i], bank = n / kCountersPerBank, bit = n % kCountersPerBank;
      if (!(enabled_[bank] >> bit & 1)) continue;
      Rate rate =
          n == kCycleCounter
              ? rates_.lookup(l_.unit->name, kind_, "cycles")
              : rates_.lookup(l_.unit->name, kind_, io.read(l_.at(Role::EventType, n))).scaled(filter_share(io, n));
      std::uint64_t inc = acc_[i].advance(rate, dt_ns);
      std::uint64_t old = io.read(counter(n));
      // A step may pass 2^width more than once only at absurd rates; one flag covers it.
      if (mask != ~0ull && (inc > mask || old + inc > mask)) overflow_[bank] |= 1u << bit;
      io.write(counter(n), (old + inc) & mask);
    }
  }
  // Whether counter n's PMEVFILTR selects a port or device with traffic (rates.json "filters").
  double filter_share(Registers& io, unsigned n) const {
    const pmu::UnitRegister* f = l_.find(Role::EventFilter, n);
    return f ? rates_.filter_share(l_.unit->name, kind_, io.read(f->reg)) : 1.0;
  }
  static std::uint32_t high_free(std::uint32_t used) {
    for (int bit = 30; bit >= 0; --bit)
      if (!(used >> bit & 1)) return 1u << bit;
    return 0;
  }
  // What PMOVSCLR reads: the flags, plus the marker while any flag is up.
  std::uint32_t shown(unsigned b) const {
    if (!marker_[b]) return 0;
    return overflow_[b] ? overflow_[b] | marker_[b] : 0;
  }
  const pmu::Reg& counter(unsigned n) const {
    return n == kCycleCounter ? l_.at(Role::CycleCounter, n) : l_.at(Role::Counter, n);
  }

  const pmu::UnitLayout& l_;
  std::string kind_;
  const Rates& rates_;
  unsigned width_;
  std::vector<unsigned> counters_;  // physical indices, the cycle counter last
  unsigned banks_;
  std::vector<std::uint32_t> enabled_, overflow_, marker_;
  std::vector<Accumulator> acc_;
};

}  // namespace

std::unique_ptr<UnitModel> make_coresight_model(const pmu::UnitLayout& layout, const Rates& rates) {
  return std::make_unique<CoreSightModel>(layout, rates);
}

}  // namespace pmukit::sim
