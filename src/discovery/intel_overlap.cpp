// pmukit -- no two discovered Intel units may claim one register block. A table that places two
// boxes on one block (an early gnr-2s description put I/O-die IIO boxes on the MSRs of a compute
// die's mdf_sbo boxes) makes every write to one a write to the other.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "pmukit/discovery/intel_pmon.h"
#include "pmukit/regs/intel_pmon.h"

namespace pmukit::discovery {

namespace {

using regs::intel::AccessType;

// One register as an address range in its own space: MSR numbers are counted one per register,
// reached through the unit's CPU (uncore MSRs are per package: units of one package share a CPU);
// MMIO and config-space ranges are bytes, as wide as regs/intel_pmon.h says the access is.
struct Span {
  std::string space;  // "MSR (CPU 0)", "MMIO", "0000:7e:0c.0 config space"
  std::uint64_t first = 0, last = 0;
  std::size_t unit = 0;
  auto key() const { return std::tie(space, first, last, unit); }
  bool operator<(const Span& o) const { return key() < o.key(); }
};

AccessType access_type(RegAccess a) {
  return a == RegAccess::Msr ? AccessType::Msr : a == RegAccess::Mmio ? AccessType::Mmio : AccessType::Pci;
}

std::vector<Span> spans_of(const IntelUnit& iu, std::size_t unit) {
  const auto w = regs::intel::widths(access_type(iu.access));
  std::string space = iu.access == RegAccess::Msr    ? fmt::format("MSR (CPU {})", iu.msr_cpu)
                      : iu.access == RegAccess::Mmio ? std::string("MMIO")
                                                     : fmt::format("{} config space", iu.pci_device->str());
  std::vector<Span> out;
  auto add = [&](std::uint64_t at, unsigned bits) {
    const std::uint64_t size = iu.access == RegAccess::Msr ? 1 : bits / 8;
    out.push_back({space, at, at + size - 1, unit});
  };
  add(iu.box_ctl, w.box_ctl);
  for (auto a : iu.ctl) add(a, w.ctl);
  for (auto a : iu.ctr) add(a, w.ctr);
  if (iu.status) add(*iu.status, 64);
  if (iu.fixed_ctl) add(*iu.fixed_ctl, w.fixed_ctl);
  if (iu.fixed_ctr) add(*iu.fixed_ctr, w.ctr);
  // The filter MSR is per box but not in the box's block (SPR CHA filters are 0x10 apart at
  // 0x200e + ...), so it is compared like any register.
  if (iu.filter) add(*iu.filter, w.filter);
  return out;
}

std::string where(const Span& s) {
  return s.space.starts_with("MSR") ? fmt::format("MSR {:#x} {}", s.first, s.space.substr(4))
                                    : fmt::format("{} {:#x}", s.space, s.first);
}

}  // namespace

std::size_t warn_overlapping_units(Inventory& inventory) {
  std::vector<Span> spans;
  for (std::size_t i = 0; i < inventory.units.size(); ++i)
    if (const auto* iu = inventory.units[i].as<IntelUnit>()) {
      auto s = spans_of(*iu, i);
      spans.insert(spans.end(), s.begin(), s.end());
    }
  std::sort(spans.begin(), spans.end());
  // Sorted by space and start: a range overlaps an earlier one of its space when it starts before
  // the furthest end seen so far; the first shared register of each pair is reported.
  std::map<std::pair<std::size_t, std::size_t>, Span> pairs;
  for (std::size_t i = 0; i < spans.size(); ++i)
    for (std::size_t j = i + 1; j < spans.size() && spans[j].space == spans[i].space && spans[j].first <= spans[i].last;
         ++j)
      if (spans[j].unit != spans[i].unit) pairs.emplace(std::minmax(spans[i].unit, spans[j].unit), spans[j]);
  for (const auto& [pair, at] : pairs) {
    auto& a = inventory.units[pair.first];
    auto& b = inventory.units[pair.second];
    inventory.warnings.push_back(fmt::format("{} and {} claim the same register ({}): the discovery data places two "
                                             "boxes on one register block, and programming either changes the other",
                                             a.name, b.name, where(at)));
    a.notes.push_back(fmt::format("shares {} with {}", where(at), b.name));
    b.notes.push_back(fmt::format("shares {} with {}", where(at), a.name));
  }
  return pairs.size();
}

}  // namespace pmukit::discovery
