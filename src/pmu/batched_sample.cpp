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

void BatchedSample::clear() {
  config_.clear();
  ranges_.clear();
  msrs_.clear();
}

void BatchedSample::add(RegisterIo& io, const Reg& load, CounterTracker& tracker, CounterValue& value,
                        std::uint64_t multiplier) {
  const Target to{&tracker, &value, multiplier};
  if (const auto* m = std::get_if<MsrAddress>(&load.at)) {
    msrs_.push_back({&io.machine().msr(m->cpu), m->cpu, m->msr, to});
    return;
  }
  const auto& c = std::get<ConfigAddress>(load.at);
  config_.push_back({&io.machine().pci().config(c.bdf), c.offset, load.width == 64, to});
}

void BatchedSample::compile() {
  std::stable_sort(msrs_.begin(), msrs_.end(), [](const MsrCounter& a, const MsrCounter& b) {
    return std::tie(a.cpu, a.msr) < std::tie(b.cpu, b.msr);
  });
  std::stable_sort(config_.begin(), config_.end(), [](const ConfigCounter& a, const ConfigCounter& b) {
    return std::tie(a.device, a.offset) < std::tie(b.device, b.offset);
  });
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
  now_.assign(longest, 0);
  again_.assign(longest, 0);
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
