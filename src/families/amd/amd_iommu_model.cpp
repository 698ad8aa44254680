// pmukit -- simulated AMD IOMMU counters: each counter whose COUNTER_SRC names an event counts it
// at the modelled rate (kind amd_iommu, code = the event source), 48 bits wide, wrapping there;
// COUNTER is written by software and counts on from what it was given. A source of 0 power-gates
// the counter (Linux arch/x86/events/amd/iommu.c: perf_iommu_start, "power-gating, which prevents
// write to the counter"; perf_iommu_stop, "reading the counter would return zero"): every step,
// a settle too, sets it to 0, so it reads 0 and a value written to it is not kept. The match
// registers do not change the rate: the simulated traffic is every device's, domain's and PASID's.
#include <vector>

#include "amd_iommu_model.h"
#include "pmukit/families/amd/amd_iommu_layout.h"
#include "pmukit/families/amd/amd_iommu_regs.h"

namespace pmukit::sim {

namespace {

using namespace regs::amd_iommu;
using Role = pmu::AmdIommuRole;

class AmdIommuModel : public UnitModel {
 public:
  AmdIommuModel(const pmu::UnitLayout& layout, const Rates& rates)
      : l_(layout), name_(layout.unit->name), kind_(layout.unit->pmu_kind), rates_(rates),
        acc_(layout.count(Role::Source)) {}

  void step(Registers& io, std::uint64_t dt_ns) override {
    for (unsigned i = 0; i < acc_.size(); ++i) {
      const auto src = CounterSrc::Event::get(read_as<CounterSrc>(io, l_.at(Role::Source, i)));
      const pmu::Reg& counter = l_.at(Role::Counter, i);
      if (!src) {  // power-gated
        if (io.read(counter)) io.write(counter, 0);
        continue;
      }
      if (!dt_ns) continue;
      const std::uint64_t n = acc_[i].advance(rates_.lookup(name_, kind_, src), dt_ns);
      io.write(counter, (io.read(counter) + n) & kValueMask);
    }
  }

 private:
  const pmu::UnitLayout& l_;
  std::string name_, kind_;
  const Rates& rates_;
  std::vector<Accumulator> acc_;
};

}  // namespace

std::unique_ptr<UnitModel> make_amd_iommu_model(const pmu::UnitLayout& layout, const Rates& rates) {
  if (!layout.find(pmu::AmdIommuRole::Source)) return nullptr;
  return std::make_unique<AmdIommuModel>(layout, rates);
}

}  // namespace pmukit::sim
