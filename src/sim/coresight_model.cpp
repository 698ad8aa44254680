// pmukit -- simulated CoreSight PMU: PMCR E/P/C, PMCNTENSET/CLR banks, PMEVTYPER-selected rates,
// the cycle counter, counter width and wrap, and PMOVSCLR overflow flags.
//
// A polling simulator cannot see a write of the value a register already holds, so the
// write-one registers use conventions pmukit's driver keeps: PMCNTENSET reads the enable mask and
// PMCNTENCLR reads 0 (any non-zero value is a clear request); PMOVSCLR holds the overflow flags
// plus a marker in a bit no counter uses, so writing back the counters' flags is always a change.
// A block whose banks have no spare bit gets no overflow flags.
#include <bit>

#include "pmukit/pmu/coresight_regs.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/sim/simulator.h"

namespace pmukit::sim {

namespace {

using discovery::CoreSightUnit;
using namespace pmu::cspmu;

class CoreSightModel : public UnitModel {
 public:
  CoreSightModel(const discovery::PmuUnit& unit, const Rates& rates)
      : u_(*unit.as<CoreSightUnit>()), kind_(unit.pmu_kind), rates_(rates) {
    unsigned logical = static_cast<unsigned>(PmcfgrN::get(u_.pmcfgr)) + 1;
    width_ = static_cast<unsigned>(PmcfgrSize::get(u_.pmcfgr)) + 1;
    cc_ = PmcfgrCc::get(u_.pmcfgr) != 0;
    for (unsigned n = 0; counters_.size() < logical - (cc_ ? 1 : 0); ++n)
      if (n != kCycleCounter) counters_.push_back(n);
    if (cc_) counters_.push_back(kCycleCounter);
    unsigned top = 0;
    for (unsigned n : counters_) top = std::max(top, n);
    banks_ = top / 32 + 1;
    enabled_.assign(banks_, 0);
    overflow_.assign(banks_, 0);
    marker_.assign(banks_, 0);
    std::vector<std::uint32_t> used(banks_, 0);
    for (unsigned n : counters_) used[n / 32] |= 1u << (n % 32);
    for (unsigned b = 0; b < banks_; ++b) marker_[b] = high_free(used[b]);
    acc_.resize(counters_.size());
  }

  void step(pmu::RegisterIo& io, std::uint64_t dt_ns) override {
    std::uint64_t pmcr = io.read(p0(PMCR));
    if (PmcrP::get(pmcr) || PmcrC::get(pmcr)) {
      for (std::size_t i = 0; i < counters_.size(); ++i) {
        bool cycle = counters_[i] == kCycleCounter;
        if (cycle ? PmcrC::get(pmcr) : PmcrP::get(pmcr)) io.write(counter(counters_[i]), 0), acc_[i].reset();
      }
      pmcr &= ~(PmcrP::mask | PmcrC::mask);
      io.write(p0(PMCR), pmcr);
    }
    for (unsigned b = 0; b < banks_; ++b) {
      auto set = static_cast<std::uint32_t>(io.read(p0(PMCNTENSET + 4 * b)));
      if (set != enabled_[b]) enabled_[b] |= set;
      if (auto clr = static_cast<std::uint32_t>(io.read(p0(PMCNTENCLR + 4 * b)))) enabled_[b] &= ~clr;
      io.write(p0(PMCNTENSET + 4 * b), enabled_[b]);
      io.write(p0(PMCNTENCLR + 4 * b), 0);
      auto ovs = static_cast<std::uint32_t>(io.read(p1(PMOVSCLR + 4 * b)));
      if (ovs != shown(b)) overflow_[b] &= ~ovs;  // write-one-to-clear
    }
    if (PmcrE::get(pmcr) && dt_ns) {
      const std::uint64_t mask = low_mask(width_);
      for (std::size_t i = 0; i < counters_.size(); ++i) {
        unsigned n = counters_[i];
        if (!(enabled_[n / 32] >> (n % 32) & 1)) continue;
        double rate =
            n == kCycleCounter ? rates_.rate(kind_, "cycles") : rates_.rate(kind_, io.read(p0(PMEVTYPER + 4 * n)));
        std::uint64_t inc = acc_[i].advance(rate, dt_ns);
        std::uint64_t old = io.read(counter(n));
        // A step may pass 2^width more than once only at absurd rates; one flag covers it.
        if (mask != ~0ull && (inc > mask || old + inc > mask)) overflow_[n / 32] |= 1u << (n % 32);
        io.write(counter(n), (old + inc) & mask);
      }
    }
    for (unsigned b = 0; b < banks_; ++b) io.write(p1(PMOVSCLR + 4 * b), shown(b));
  }

 private:
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
  pmu::Reg p0(std::uint32_t off) const { return pmu::mmio32(u_.base0 + off); }
  pmu::Reg p1(std::uint32_t off) const { return pmu::mmio32(u_.base1 + off); }
  pmu::Reg counter(unsigned n) const {
    if (width_ <= 32) return pmu::mmio32(u_.base1 + PMEVCNTR + 4u * n);
    return pmu::mmio64(u_.base1 + PMEVCNTR + 8u * n, u_.atomic64);
  }

  const CoreSightUnit& u_;
  std::string kind_;
  const Rates& rates_;
  unsigned width_ = 32, banks_ = 1;
  bool cc_ = false;
  std::vector<unsigned> counters_;
  std::vector<std::uint32_t> enabled_, overflow_, marker_;
  std::vector<Accumulator> acc_;
};

}  // namespace

std::unique_ptr<UnitModel> make_coresight_model(const discovery::PmuUnit& unit, const Rates& rates) {
  return std::make_unique<CoreSightModel>(unit, rates);
}

}  // namespace pmukit::sim
