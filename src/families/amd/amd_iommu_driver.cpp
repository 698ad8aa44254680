// pmukit -- AMD IOMMU performance counter driver (Linux arch/x86/events/amd/iommu.c).
//
// The kernel's rules, function by function, and what this driver does with them:
// - Counter assignment (get_next_avail_iommu_bnk_cntr): the first free counter, bank by bank.
//   The n-th event here takes counter n the same way; more events than banks x counters is
//   counters_short (the kernel's -ENOSPC), counted in turn.
// - Enabling (perf_iommu_start -> perf_iommu_enable_event): COUNTER_SRC = csource, then
//   DEVID_MATCH, PASID_MATCH, DOMID_MATCH each = value | mask << 32, with bit 31 set when that is
//   non-zero; then, "to account for power-gating, which prevents write to the counter", COUNTER =
//   0 after the source. pmukit makes these writes in this order in start(), for every counter of
//   the run, and counts from 0 (zero_at_start).
// - Every write goes through iommu_pc_get_set_reg: the value masked to 48 bits, two 32-bit
//   writes, the low dword first (the layout's registers store so).
// - Reading (perf_iommu_read): COUNTER, masked to 48 bits (a 48-bit slice here).
// - Stopping (perf_iommu_stop): the kernel reads the counter first, "to account for power-gating,
//   in which reading the counter would return zero", then disables it (COUNTER_SRC = 0). A
//   counter whose source is 0 is power-gated: it reads 0 and drops writes. pmukit's read loop
//   stops the units and then takes its last sample, so stop() leaves the sources set (it writes
//   nothing): the counts go on being read (on hardware, and in pmu-sim's real time, the last
//   sample takes in the microseconds between stop() and that read too). The sources are cleared
//   by reset(), before the next set of a multiplexed unit (whose counts were read at its turn,
//   before reset), and by restore's Quiesce phase.
// Restoring: the counters the run used, their sources 0 first (nothing counts while the rest is
// written), then the match registers and the source as saved. COUNTER cannot be put back while
// its source is 0 (it reads 0 and drops the write; a saved counter whose source was 0 read 0
// too): it is written, with its saved value, only after a saved source that is set, in
// perf_iommu_start's order (a counter taken with --force gets back the count it had).
#include <fmt/format.h>

#include <algorithm>

#include "amd_iommu_driver.h"
#include "pmukit/families/amd/amd_iommu_layout.h"
#include "pmukit/families/amd/amd_iommu_regs.h"
#include "pmukit/families/amd/amd_iommu_unit.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

using namespace regs::amd_iommu;
using Role = AmdIommuRole;

// The match register value perf_iommu_enable_event builds: value | mask << 32, bit 31 when either.
std::uint64_t match(std::uint64_t value, std::uint64_t mask) {
  std::uint64_t reg = value | mask << 32;
  return (reg ? reg | std::uint64_t{1} << 31 : 0) & kValueMask;
}

struct Programmed {
  unsigned index = 0;
  std::uint64_t source = 0, devid = 0, pasid = 0, domid = 0;
};

Programmed encode(unsigned index, const syntax::EncodedEvent& e) {
  const RegValue<PerfConfig> c{e.config};
  const RegValue<PerfConfig1> c1{e.config1};
  return {index, PerfConfig::Csource::get(c), match(PerfConfig::Devid::get(c), PerfConfig1::DevidMask::get(c1)),
          match(PerfConfig::Pasid::get(c), PerfConfig1::PasidMask::get(c1)),
          match(PerfConfig::Domid::get(c), PerfConfig1::DomidMask::get(c1))};
}

class AmdIommuDriver : public UnitDriver {
 public:
  explicit AmdIommuDriver(const UnitLayout& layout)
      : UnitDriver(layout), counters_(static_cast<unsigned>(layout.count(Role::Source))) {}

  // A counter whose source is set counts for someone (the kernel's amd_iommu PMU, another tool).
  std::optional<Busy> busy(WriteGuard& g) const override {
    for (unsigned i = 0; i < counters_; ++i) {
      const Reg& src = layout_.at(Role::Source, i);
      if (auto v = g.read(src) & kValueMask)
        return Busy{src, v, fmt::format("counter {} counts event source {:#x}", i, v)};
    }
    return std::nullopt;
  }

  std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const override {
    if (events.size() <= counters_) return std::nullopt;
    return DoesNotFit{fmt::format("{}: {} events but the IOMMU has {} counters (Linux iommu.c "
                                  "get_next_avail_iommu_bnk_cntr)",
                                  unit_.name, events.size(), counters_),
                      "", false, true};
  }

  // The current set's sources off (its counts were read at its turn): perf_iommu_disable_event.
  void reset(WriteGuard& g) override {
    for (const auto& p : programmed_) g.write(layout_.at(Role::Source, p.index), 0);
    programmed_.clear();
  }

  void configure(WriteGuard&, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) override {
    for (unsigned i = 0; i < events.size(); ++i) {
      programmed_.push_back(encode(i, events[i]));
      if (std::find(used_.begin(), used_.end(), i) == used_.end()) used_.push_back(i);
      auto c = plan.add_sliced({layout_.at(Role::Counter, i)}, {SamplePlan::Slice{0, kCounterWidth, 0}}, kCounterWidth);
      plan.counters[c].zero_at_start = true;  // start() writes COUNTER = 0 after the baseline
    }
  }

  void start(WriteGuard& g) override {
    for (const auto& p : programmed_) {  // perf_iommu_enable_event, then the counter from 0
      g.write(layout_.at(Role::Source, p.index), p.source);
      g.write(layout_.at(Role::DevidMatch, p.index), p.devid);
      g.write(layout_.at(Role::PasidMatch, p.index), p.pasid);
      g.write(layout_.at(Role::DomidMatch, p.index), p.domid);
      g.write(layout_.at(Role::Counter, p.index), 0);
    }
  }

  // Nothing: a counter whose source is 0 reads 0 (perf_iommu_stop reads before it disables), and
  // the read loop takes its last sample after stop(). reset() and restore() clear the sources.
  void stop(WriteGuard&) override {}

  // After a killed run: the counters whose registers differ from the journalled originals.
  void adopt(WriteGuard& g) override {
    used_.clear();
    for (unsigned i = 0; i < counters_; ++i)
      for (Role role : {Role::Source, Role::Counter, Role::DevidMatch, Role::PasidMatch, Role::DomidMatch}) {
        const Reg& reg = layout_.at(role, i);
        if (g.owns(reg) && g.read(reg) != g.original(reg)) {
          used_.push_back(i);
          break;
        }
      }
  }

  void restore(WriteGuard& g, RestorePhase phase) override {
    if (phase == RestorePhase::Quiesce)
      for (unsigned i : used_) g.write(layout_.at(Role::Source, i), 0);
    if (phase != RestorePhase::PutBack) return;
    for (unsigned i : used_) {
      for (Role role : {Role::DevidMatch, Role::PasidMatch, Role::DomidMatch})
        g.write(layout_.at(role, i), g.original(layout_.at(role, i)));
      const Reg& src = layout_.at(Role::Source, i);
      g.write(src, g.original(src));
      // Power-gated while its source is 0: the write would be dropped, and the counter reads 0.
      if (g.original(src) & kValueMask) g.write(layout_.at(Role::Counter, i), g.original(layout_.at(Role::Counter, i)));
    }
  }

 private:
  unsigned counters_;
  std::vector<Programmed> programmed_;  // the events of the current set, in counter order
  std::vector<unsigned> used_;          // every counter this run has programmed
};

}  // namespace

std::unique_ptr<UnitDriver> make_amd_iommu(const UnitLayout& layout) {
  const auto& unit = *layout.unit;
  if (!layout.find(AmdIommuRole::Source))
    throw Error(fmt::format("{}: its counters cannot be programmed directly ({}); use --backend perf where the "
                            "kernel's amd_iommu PMU is loaded",
                            unit.name, unit.notes.empty() ? "no counters found" : unit.notes.back()));
  return std::make_unique<AmdIommuDriver>(layout);
}

}  // namespace pmukit::pmu
