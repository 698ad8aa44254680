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

namespace {

// What the unused room of a unit loads: zero, in memory that is always mapped.
alignas(8) const volatile std::uint64_t kZero64 = 0;
alignas(8) const volatile std::uint32_t kZero32[2] = {0, 0};

}  // namespace

void FlatSample::clear() {
  status_.assign(1, Status{nullptr, 0, 0, Reg{}});  // bank 0: none, never loaded, never set
  one64_.clear();
  one32_.clear();
  hilohi_.clear();
  hilohi_phys_.clear();
  units_.clear();
  banks_.clear();
}

void FlatSample::begin_unit(std::size_t u) {
  if (u > units_.size()) throw Error("flat sample: units must be added in order");
  if (u == units_.size()) {
    Segment s;
    s.begin[0] = one64_.size(), s.begin[1] = one32_.size(), s.begin[2] = hilohi_.size();
    units_.push_back(s);
    banks_.emplace_back();
  }
  unit_ = u, unit_banks_ = 0;
  new64_.clear(), new32_.clear(), new_hilohi_.clear(), new_phys_.clear();
}

std::uint32_t FlatSample::add_status(const RegisterWindow& window, const SamplePlan::Status& status) {
  const std::uint64_t phys = std::get<MmioAddress>(status.reg.at).phys;
  const Status bank{window.address32(phys - window.phys_base()), status.mask, 0, status.reg};
  auto& mine = banks_[unit_];
  if (unit_banks_ == mine.size()) {
    mine.push_back(static_cast<std::uint32_t>(status_.size()));
    status_.push_back(bank);
  } else {
    status_[mine[unit_banks_]] = bank;
  }
  return mine[unit_banks_++];
}

void FlatSample::add(const RegisterWindow& window, const Reg& load, CounterTracker& tracker, CounterValue& value,
                     std::uint64_t multiplier, std::uint32_t status, std::uint32_t bit) {
  const std::uint64_t phys = std::get<MmioAddress>(load.at).phys, off = phys - window.phys_base();
  if (load.width == 32) {
    new32_.push_back({window.address32(off), &tracker, &value, multiplier, status, bit});
  } else if (load.load == Load::HiLoHi) {
    new_hilohi_.push_back({window.address_hilohi(off), &tracker, &value, multiplier, status, bit});
    new_phys_.push_back(phys);
  } else {
    new64_.push_back({window.address64(off), &tracker, &value, multiplier, status, bit});
  }
}

// The unit's new entries of one kind into its room, grown (moving the later units' entries) only
// when it has more than ever before; the rest of the room dead.
template <class E>
void FlatSample::place(std::vector<E>& all, std::vector<E>& fresh, std::size_t kind, const E& dead) {
  Segment& seg = units_[unit_];
  if (fresh.size() > seg.room[kind]) {
    const std::size_t grow = fresh.size() - seg.room[kind];
    const auto at = static_cast<std::ptrdiff_t>(seg.begin[kind] + seg.room[kind]);
    all.insert(all.begin() + at, grow, dead);
    if (kind == 2) hilohi_phys_.insert(hilohi_phys_.begin() + at, grow, 0);
    for (std::size_t v = unit_ + 1; v < units_.size(); ++v) units_[v].begin[kind] += grow;
    seg.room[kind] = fresh.size();
  }
  for (std::size_t i = 0; i < seg.room[kind]; ++i) {
    all[seg.begin[kind] + i] = i < fresh.size() ? fresh[i] : dead;
    if (kind == 2) hilohi_phys_[seg.begin[kind] + i] = i < fresh.size() ? new_phys_[i] : 0;
  }
}

void FlatSample::end_unit() {
  place(one64_, new64_, 0, {&kZero64, &dead_tracker_, &dead_value_, 0, 0, 0});
  place(one32_, new32_, 1, {&kZero32[0], &dead_tracker_, &dead_value_, 0, 0, 0});
  place(hilohi_, new_hilohi_, 2, {&kZero32[0], &dead_tracker_, &dead_value_, 0, 0, 0});
  // Banks it no longer has: a zero with no bits of ours, never written back.
  for (std::size_t b = unit_banks_; b < banks_[unit_].size(); ++b)
    status_[banks_[unit_][b]] = Status{&kZero32[0], 0, 0, Reg{}};
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
