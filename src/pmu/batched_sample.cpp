// pmukit -- config-space counters by device range, MSR counters by CPU in address order.
#include "batched_sample.h"

#include <algorithm>
#include <tuple>
#include <variant>

#include <fmt/format.h>

#include "flat_sample.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/access/register_window.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

std::uint32_t dword(const std::vector<std::uint8_t>& bytes, std::size_t at) {
  const std::uint8_t* b = bytes.data() + at;  // config space is little-endian
  return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
         static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

}  // namespace

bool BatchedSample::eligible(const SamplePlan& plan, const SamplePlan::Counter& c) {
  if (c.count != 1 || c.status >= 0 || c.select >= 0) return false;  // a select write first: the guarded read
  const Reg& r = plan.loads[c.first];
  const SamplePlan::Slice& s = plan.slices[c.first];
  if (s.shift != 0 || s.bits < 64 || s.scale != 0) return false;
  if (std::holds_alternative<MsrAddress>(r.at)) return true;
  const auto* c32 = std::get_if<ConfigAddress>(&r.at);
  return c32 && c32->offset % 4 == 0 &&
         ((r.width == 32 && r.load == Load::One) || (r.width == 64 && r.load == Load::HiLoHi));
}

namespace {

bool config_before(const auto& a, const auto& b) {
  return std::tie(a.device, a.offset, a.unit, a.index) < std::tie(b.device, b.offset, b.unit, b.index);
}
bool msr_before(const auto& a, const auto& b) {
  return std::tie(a.cpu, a.msr, a.unit, a.index) < std::tie(b.cpu, b.msr, b.unit, b.index);
}

}  // namespace

void BatchedSample::clear() {
  building_ = true;
  config_.clear();
  ranges_.clear();
  msrs_.clear();
  config_at_.clear();
  msr_at_.clear();
}

void BatchedSample::begin_unit(std::size_t u) {
  if (u > config_at_.size()) throw Error("batched sample: units must be added in order");
  if (u == config_at_.size()) config_at_.emplace_back(), msr_at_.emplace_back();
  unit_ = u;
  new_config_.clear();
  new_msrs_.clear();
}

void BatchedSample::add(RegisterIo& io, const Reg& load, CounterTracker& tracker, CounterValue& value,
                        std::uint64_t multiplier) {
  const Target to{&tracker, &value, multiplier};
  const auto u = static_cast<std::uint32_t>(unit_);
  if (const auto* m = std::get_if<MsrAddress>(&load.at)) {
    const auto i = static_cast<std::uint32_t>(new_msrs_.size());
    new_msrs_.push_back({&io.machine().msr(m->cpu), m->cpu, m->msr, to, u, i});
    return;
  }
  const auto& c = std::get<ConfigAddress>(load.at);
  const auto i = static_cast<std::uint32_t>(new_config_.size());
  new_config_.push_back({&io.machine().pci().config(c.bdf), c.offset, load.width == 64, to, u, i});
}

// Whether the unit being added reads the registers it read before (for other events, maybe: a
// constrained event set places its events differently).
bool BatchedSample::same_registers() const {
  const auto& cat = config_at_[unit_];
  const auto& mat = msr_at_[unit_];
  if (cat.size() != new_config_.size() || mat.size() != new_msrs_.size()) return false;
  for (std::size_t k = 0; k < cat.size(); ++k) {
    const ConfigCounter& was = config_[cat[k]];
    const ConfigCounter& now = new_config_[k];
    if (was.device != now.device || was.offset != now.offset || was.wide != now.wide) return false;
  }
  for (std::size_t k = 0; k < mat.size(); ++k) {
    const MsrCounter& was = msrs_[mat[k]];
    if (was.cpu != new_msrs_[k].cpu || was.msr != new_msrs_[k].msr) return false;
  }
  return true;
}

void BatchedSample::end_unit() {
  if (building_) {  // grouped once, by compile()
    config_.insert(config_.end(), new_config_.begin(), new_config_.end());
    msrs_.insert(msrs_.end(), new_msrs_.begin(), new_msrs_.end());
    return;
  }
  // The unit's counters in the lists' order, to compare with what it had.
  std::sort(new_config_.begin(), new_config_.end(), [](const auto& a, const auto& b) { return config_before(a, b); });
  std::sort(new_msrs_.begin(), new_msrs_.end(), [](const auto& a, const auto& b) { return msr_before(a, b); });
  if (same_registers()) {
    for (std::size_t k = 0; k < new_config_.size(); ++k) {
      ConfigCounter& c = config_[config_at_[unit_][k]];
      c.to = new_config_[k].to, c.index = new_config_[k].index;
    }
    for (std::size_t k = 0; k < new_msrs_.size(); ++k) {
      MsrCounter& m = msrs_[msr_at_[unit_][k]];
      m.to = new_msrs_[k].to, m.index = new_msrs_[k].index;
    }
    return;
  }
  const auto u = static_cast<std::uint32_t>(unit_);
  std::erase_if(config_, [u](const ConfigCounter& c) { return c.unit == u; });
  std::erase_if(msrs_, [u](const MsrCounter& m) { return m.unit == u; });
  config_.insert(config_.end(), new_config_.begin(), new_config_.end());
  msrs_.insert(msrs_.end(), new_msrs_.begin(), new_msrs_.end());
  group();
}

void BatchedSample::compile() {
  building_ = false;
  group();
}

// Every counter by device (their covering ranges) and CPU (address order).
void BatchedSample::group() {
  std::sort(msrs_.begin(), msrs_.end(), [](const auto& a, const auto& b) { return msr_before(a, b); });
  std::sort(config_.begin(), config_.end(), [](const auto& a, const auto& b) { return config_before(a, b); });
  for (auto& at : config_at_) at.clear();
  for (auto& at : msr_at_) at.clear();
  for (std::size_t k = 0; k < config_.size(); ++k) config_at_[config_[k].unit].push_back(static_cast<std::uint32_t>(k));
  for (std::size_t k = 0; k < msrs_.size(); ++k) msr_at_[msrs_[k].unit].push_back(static_cast<std::uint32_t>(k));
  ranges_.clear();
  std::size_t longest = 0;
  for (std::size_t i = 0; i < config_.size(); ++i) {
    const ConfigCounter& c = config_[i];
    const std::uint32_t end = c.offset + (c.wide ? 8 : 4);
    if (ranges_.empty() || ranges_.back().device != c.device) {
      ranges_.push_back({c.device, c.offset, end - c.offset, i, 1, c.wide});
    } else {
      Range& r = ranges_.back();
      r.len = std::max(r.len, end - r.offset);
      ++r.count;
      r.wide = r.wide || c.wide;
    }
    longest = std::max<std::size_t>(longest, ranges_.back().len);
  }
  // Never shrunk: a unit's next set reads its longest range again without allocating.
  if (longest > now_.size()) now_.resize(longest), again_.resize(longest);
}

// hi-lo-hi over the whole range: the kernel reads a config range in ascending dwords, so in the
// second read each low dword comes after the first read's high dword and before its own; equal
// high dwords mean no carry in between.
void BatchedSample::read_range(const Range& r) {
  r.device->read_range(r.offset, now_.data(), r.len);
  if (!r.wide) return;
  for (int i = 0; i < kHiLoHiMaxPoll; ++i) {
    r.device->read_range(r.offset, again_.data(), r.len);
    bool settled = true;
    for (std::size_t k = r.first; k < r.first + r.count && settled; ++k) {
      const std::size_t hi = config_[k].offset - r.offset + 4;
      settled = !config_[k].wide || dword(now_, hi) == dword(again_, hi);
    }
    now_.swap(again_);
    if (settled) return;
  }
  throw Error(
      fmt::format("{} @{:#x}: 64-bit counters kept changing their high words", r.device->bdf().str(), r.offset));
}

void BatchedSample::sample() {
  for (const Range& r : ranges_) {
    read_range(r);
    for (std::size_t k = r.first; k < r.first + r.count; ++k) {
      const ConfigCounter& c = config_[k];
      const std::size_t at = c.offset - r.offset;
      const std::uint64_t raw = c.wide ? std::uint64_t{dword(now_, at + 4)} << 32 | dword(now_, at) : dword(now_, at);
      record(*c.to.tracker, *c.to.value, c.to.multiplier, raw);
    }
  }
  for (const MsrCounter& m : msrs_) record(*m.to.tracker, *m.to.value, m.to.multiplier, m.device->read(m.msr));
}

}  // namespace pmukit::pmu
