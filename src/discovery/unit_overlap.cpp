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
// The space is a number (Spaces) so that sorting thousands of spans compares integers.
struct Span {
  std::size_t space = 0;  // index into Spaces::names
  std::uint64_t first = 0, last = 0;
  std::size_t unit = 0;
  auto key() const { return std::tie(space, first, last, unit); }
  bool operator<(const Span& o) const { return key() < o.key(); }
};

AccessType access_type(RegAccess a) {
  return a == RegAccess::Msr ? AccessType::Msr : a == RegAccess::Mmio ? AccessType::Mmio : AccessType::Pci;
}

// The address spaces' names ("MSR (CPU 0)", "MMIO", "0000:7e:0c.0 config space"), numbered.
struct Spaces {
  std::vector<std::string> names;
  std::map<std::string, std::size_t, std::less<>> index;
  std::size_t of(std::string name) {
    auto [it, added] = index.emplace(std::move(name), names.size());
    if (added) names.push_back(it->first);
    return it->second;
  }
};

void add_spans_of(const IntelUnit& iu, std::size_t unit, Spaces& spaces, std::vector<Span>& out) {
  const auto w = regs::intel::widths(access_type(iu.access));
  const std::size_t space =
      spaces.of(iu.access == RegAccess::Msr    ? fmt::format("MSR (CPU {})", iu.msr_cpu)
                : iu.access == RegAccess::Mmio ? std::string("MMIO")
                                               : fmt::format("{} config space", iu.pci_device->str()));
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
}

std::string where(const Span& s, const Spaces& spaces) {
  const std::string& space = spaces.names[s.space];
  return space.starts_with("MSR") ? fmt::format("MSR {:#x} {}", s.first, space.substr(4))
                                  : fmt::format("{} {:#x}", space, s.first);
}

}  // namespace

std::size_t warn_overlapping_units(Inventory& inventory) {
  Spaces spaces;
  std::vector<Span> spans;
  for (std::size_t i = 0; i < inventory.units.size(); ++i)
    if (const auto* iu = inventory.units[i].as<IntelUnit>()) add_spans_of(*iu, i, spaces, spans);
  std::sort(spans.begin(), spans.end());
  // Sorted by space and start: a range overlaps an earlier one of its space when it starts before
  // the furthest end seen so far; the first shared register of each pair is reported (a pair of
  // units shares at most one space, so the order of the spaces does not change which).
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
                                             a.name, b.name, where(at, spaces)));
    a.notes.push_back(fmt::format("shares {} with {}", where(at, spaces), b.name));
    b.notes.push_back(fmt::format("shares {} with {}", where(at, spaces), a.name));
  }
  return pairs.size();
}

}  // namespace pmukit::discovery
