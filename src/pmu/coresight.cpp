// pmukit -- Arm CoreSight PMU driver (APMT-described blocks: NVIDIA Grace/Tegra410, Ampere, others).
//
// Programming follows Linux arm_cspmu: PMEVTYPER/PMEVFILTR/PMEVFILT2R per counter, PMCCFILTR for the
// cycle counter (index 31), PMCNTENSET/CLR in banks of 32, PMCR.E to count; PMCR.P/C reset the
// counters when programming starts. How config words become register values is platform data
// (CoreSightProgramming), the arm_cspmu impl_ops idea.
#include <fmt/format.h>

#include "drivers.h"
#include "pmukit/pmu/coresight_regs.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

using discovery::CoreSightUnit;
using namespace cspmu;

class CoreSightDriver : public UnitDriver {
 public:
  CoreSightDriver(const discovery::PmuUnit& unit, platform::CoreSightProgramming prog)
      : UnitDriver(unit), u_(*unit.as<CoreSightUnit>()), prog_(std::move(prog)) {
    logical_ = static_cast<unsigned>(PmcfgrN::get(u_.pmcfgr)) + 1;
    width_ = static_cast<unsigned>(PmcfgrSize::get(u_.pmcfgr)) + 1;
    cc_ = PmcfgrCc::get(u_.pmcfgr) != 0;
    // With a cycle counter, the last logical counter is physical 31 (arm_cspmu_init_mmio).
    for (unsigned n = 0, count = logical_ - (cc_ ? 1 : 0); general_.size() < count; ++n)
      if (n != kCycleCounter) general_.push_back(n);
  }

  std::vector<Reg> registers() const override {
    std::vector<Reg> r{p0(PMCR)};
    for (unsigned n : general_) {
      r.push_back(p0(PMEVTYPER + 4 * n));
      r.push_back(p0(PMEVFILTR + 4 * n));
      r.push_back(p0(PMEVFILT2R + 4 * n));
      r.push_back(counter(n));
    }
    if (cc_) r.push_back(p0(PMCCFILTR)), r.push_back(counter(kCycleCounter));
    for (unsigned b = 0; b <= banks(); ++b) {
      r.push_back(p0(PMCNTENSET + 4 * b));
      r.push_back(p0(PMCNTENCLR + 4 * b));
      r.push_back(p1(PMOVSCLR + 4 * b));
    }
    for (const auto& a : prog_.aux) r.push_back(p0(a.offset));
    return r;
  }

  std::vector<std::pair<std::uint64_t, std::uint64_t>> mmio_blocks() const override {
    if (u_.base1 == u_.base0) return {{u_.base0, kPageSize}};
    return {{u_.base0, kPageSize}, {u_.base1, kPageSize}};
  }

  std::optional<std::string> busy(WriteGuard& g) const override {
    for (unsigned b = 0; b <= banks(); ++b)
      if (auto v = g.read(p0(PMCNTENSET + 4 * b)))
        return fmt::format("PMCNTENSET{} is {:#x}: counters are enabled", b, v);
    return std::nullopt;
  }

  void check(const std::vector<events::EncodedEvent>& events) const override {
    std::size_t general = 0, cycles = 0;
    std::optional<std::vector<std::uint64_t>> aux;
    for (const auto& e : events) {
      const std::uint64_t cfg[3] = {e.config, e.config1, e.config2};
      for (const auto& u : prog_.unsupported)
        if (u.bits.take(cfg)) throw UsageError(fmt::format("{}: {} ({})", unit_.name, u.why, e.name));
      (is_cycles(e) ? cycles : general) += 1;
      std::vector<std::uint64_t> mine;
      for (const auto& a : prog_.aux) mine.push_back(a.value.assemble(cfg));
      if (aux && *aux != mine)
        throw UsageError(fmt::format("{}: events need different values in the shared filter registers", unit_.name));
      aux = mine;
    }
    if (cycles && !cc_) throw UsageError(fmt::format("{}: the block has no cycle counter", unit_.name));
    if (cycles > 1 || general > general_.size())
      throw UsageError(fmt::format("{}: {} events but the block has {} counters{}; count them in separate runs, or use "
                                   "--backend perf, which multiplexes",
                                   unit_.name, events.size(), general_.size(), cc_ ? " and a cycle counter" : ""));
  }

  void program(WriteGuard& g, const std::vector<events::EncodedEvent>& events) override {
    check(events);
    slots_.clear();
    enable_.assign(banks() + 1, 0);
    const std::uint64_t pmcr = g.original(p0(PMCR));
    g.write(p0(PMCR), (pmcr & ~PmcrE::mask) | PmcrP::put(1) | PmcrC::put(1));  // stop, reset counters
    g.barrier();
    std::size_t next = 0;
    for (const auto& e : events) {
      const std::uint64_t cfg[3] = {e.config, e.config1, e.config2};
      unsigned n = is_cycles(e) ? kCycleCounter : general_[next++];
      if (n == kCycleCounter) {
        g.write(p0(PMCCFILTR), prog_.pmccfiltr.assemble(cfg));
      } else {
        g.write(p0(PMEVTYPER + 4 * n), prog_.pmevtyper.assemble(cfg));
        g.write(p0(PMEVFILTR + 4 * n), prog_.pmevfiltr.assemble(cfg));
        g.write(p0(PMEVFILT2R + 4 * n), prog_.pmevfilt2r.assemble(cfg));
      }
      for (const auto& a : prog_.aux) g.write(p0(a.offset), a.value.assemble(cfg));
      enable_[n / 32] |= 1u << (n % 32);
      slots_.push_back(n);
    }
  }

  void start(WriteGuard& g) override {
    // One write per bank, so every counter starts together.
    for (unsigned b = 0; b < enable_.size(); ++b)
      if (enable_[b]) g.write(p0(PMCNTENSET + 4 * b), enable_[b]);
    g.write(p0(PMCR), (g.original(p0(PMCR)) & ~(PmcrP::mask | PmcrC::mask)) | PmcrE::put(1));
    g.barrier();
  }

  void stop(WriteGuard& g) override {
    for (unsigned b = 0; b < enable_.size(); ++b)
      if (enable_[b]) g.write(p0(PMCNTENCLR + 4 * b), enable_[b]);
    g.barrier();
  }

  void read(WriteGuard& g, std::vector<Reading>& out) override {
    ovf_.assign(enable_.size(), 0);
    for (unsigned b = 0; b < enable_.size(); ++b)
      if (enable_[b]) ovf_[b] = static_cast<std::uint32_t>(g.read(p1(PMOVSCLR + 4 * b))) & enable_[b];
    out.resize(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      unsigned n = slots_[i];
      out[i] = {g.read(counter(n)), (ovf_[n / 32] >> (n % 32) & 1) != 0};
    }
    for (unsigned b = 0; b < ovf_.size(); ++b)
      if (ovf_[b]) g.write(p1(PMOVSCLR + 4 * b), ovf_[b]);  // write-one-to-clear what we saw
  }

  unsigned width(std::size_t) const override { return width_; }

  void restore(WriteGuard& g) override {
    g.write(p0(PMCR), g.original(p0(PMCR)) & ~PmcrE::mask);  // nothing counts while we restore
    for (unsigned b = 0; b <= banks(); ++b) {
      std::uint32_t ours = b < enable_.size() ? enable_[b] : 0;
      if (ours) g.write(p0(PMCNTENCLR + 4 * b), ours);
    }
    g.barrier();
    for (const auto& r : registers()) {
      bool page1 = u_.base1 != u_.base0 && r.addr >= u_.base1 && r.addr < u_.base1 + kPageSize;
      auto off = static_cast<std::uint32_t>(r.addr - (page1 ? u_.base1 : u_.base0));
      bool set_clear = !page1 && off >= PMCNTENSET && off < PMCNTENSET + 0x40;
      bool overflow = (page1 || u_.base1 == u_.base0) && off >= PMOVSCLR && off < PMOVSCLR + 0x40;
      if (!set_clear && !overflow && !(off == PMCR && !page1)) g.write(r, g.original(r));
    }
    // Write-one registers are restored by effect, not by value: clear the overflow flags our run
    // raised, and re-enable what was enabled before.
    for (unsigned b = 0; b < enable_.size(); ++b)
      if (std::uint32_t ovf = static_cast<std::uint32_t>(g.read(p1(PMOVSCLR + 4 * b))) & enable_[b])
        g.write(p1(PMOVSCLR + 4 * b), ovf);
    for (unsigned b = 0; b <= banks(); ++b)
      if (auto was = g.original(p0(PMCNTENSET + 4 * b))) g.write(p0(PMCNTENSET + 4 * b), was);
    g.write(p0(PMCR), g.original(p0(PMCR)));
    g.barrier();
  }

 private:
  bool is_cycles(const events::EncodedEvent& e) const {
    const std::uint64_t cfg[3] = {e.config, e.config1, e.config2};
    return prog_.cycles_bit && prog_.cycles_bit->take(cfg);
  }
  // Index of the last SET/CLR/OVS register bank any of our counters uses.
  unsigned banks() const {
    unsigned top = general_.empty() ? 0 : general_.back();
    if (cc_) top = std::max(top, kCycleCounter);
    return top / 32;
  }
  Reg p0(std::uint32_t off) const { return mmio32(u_.base0 + off); }
  Reg p1(std::uint32_t off) const { return mmio32(u_.base1 + off); }
  Reg counter(unsigned n) const {
    if (width_ <= 32) return mmio32(u_.base1 + PMEVCNTR + 4u * n);
    return mmio64(u_.base1 + PMEVCNTR + 8u * n, u_.atomic64);
  }

  const CoreSightUnit& u_;
  platform::CoreSightProgramming prog_;
  unsigned logical_ = 0, width_ = 32;
  bool cc_ = false;
  std::vector<unsigned> general_;      // physical indices of the event counters
  std::vector<unsigned> slots_;        // physical counter per programmed event
  std::vector<std::uint32_t> enable_;  // PMCNTENSET bits we set, per bank
  std::vector<std::uint32_t> ovf_;     // overflow flags seen by the last read, per bank
};

}  // namespace

std::unique_ptr<UnitDriver> make_coresight(const discovery::PmuUnit& unit, const platform::Database& db) {
  const auto* kind = db.pmu_kind(unit.pmu_kind);
  auto prog = kind && kind->coresight ? *kind->coresight : platform::CoreSightProgramming::arm_default();
  return std::make_unique<CoreSightDriver>(unit, std::move(prog));
}

}  // namespace pmukit::pmu
