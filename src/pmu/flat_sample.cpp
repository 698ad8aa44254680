// pmukit -- the flat sampling pass.
#include "flat_sample.h"

#include <variant>

#include <fmt/format.h>

#include "pmukit/access/register_window.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

bool FlatSample::eligible(const SamplePlan& plan, const SamplePlan::Counter& c) {
  if (c.count != 1 || c.select >= 0) return false;  // a select write first: the guarded read
  const Reg& r = plan.loads[c.first];
  const SamplePlan::Slice& s = plan.slices[c.first];
  return std::holds_alternative<MmioAddress>(r.at) && s.shift == 0 && s.bits >= 64 && s.scale == 0 &&
         (r.width == 32 || r.width == 64);
}

bool FlatSample::eligible(const SamplePlan::Status& status) {
  return std::holds_alternative<MmioAddress>(status.reg.at) && status.reg.width == 32;
}

void FlatSample::clear() {
  status_.assign(1, Status{nullptr, 0, 0, Reg{}});  // bank 0: none, never loaded, never set
  one64_.clear();
  one32_.clear();
  hilohi_.clear();
  hilohi_phys_.clear();
}

std::uint32_t FlatSample::add_status(const RegisterWindow& window, const SamplePlan::Status& status) {
  const std::uint64_t phys = std::get<MmioAddress>(status.reg.at).phys;
  status_.push_back({window.address32(phys - window.phys_base()), status.mask, 0, status.reg});
  return static_cast<std::uint32_t>(status_.size() - 1);
}

void FlatSample::add(const RegisterWindow& window, const Reg& load, CounterTracker& tracker, CounterValue& value,
                     std::uint64_t multiplier, std::uint32_t status, std::uint32_t bit) {
  const std::uint64_t phys = std::get<MmioAddress>(load.at).phys, off = phys - window.phys_base();
  if (load.width == 32) {
    one32_.push_back({window.address32(off), &tracker, &value, multiplier, status, bit});
  } else if (load.load == Load::HiLoHi) {
    hilohi_.push_back({window.address_hilohi(off), &tracker, &value, multiplier, status, bit});
    hilohi_phys_.push_back(phys);
  } else {
    one64_.push_back({window.address64(off), &tracker, &value, multiplier, status, bit});
  }
}

void FlatSample::sample(WriteGuard& guard) {
  for (std::size_t s = 1; s < status_.size(); ++s) status_[s].seen = load32(status_[s].at) & status_[s].mask;
  for (const auto& e : one64_) record(*e.tracker, *e.value, e.multiplier, load64(e.at), overflow(e.status, e.bit));
  for (const auto& e : one32_) record(*e.tracker, *e.value, e.multiplier, load32(e.at), overflow(e.status, e.bit));
  for (std::size_t i = 0; i < hilohi_.size(); ++i) {
    const auto& e = hilohi_[i];
    std::uint64_t raw = 0;
    if (!load64_hilohi(e.at, raw))
      throw Error(fmt::format("MMIO {:#x}: 64-bit counter kept changing its high word", hilohi_phys_[i]));
    record(*e.tracker, *e.value, e.multiplier, raw, overflow(e.status, e.bit));
  }
  for (std::size_t s = 1; s < status_.size(); ++s)
    if (status_[s].seen) guard.write(status_[s].reg, status_[s].seen);  // write-one-to-clear what we saw
}

}  // namespace pmukit::pmu
