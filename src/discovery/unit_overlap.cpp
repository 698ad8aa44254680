// pmukit -- no two discovered units may claim one register, whatever their families. A table that
// places two boxes on one block (an early gnr-2s description put I/O-die IIO boxes on the MSRs of
// a compute die's mdf_sbo boxes), or an APMT that lists two CoreSight nodes on one page, makes
// every write to one a write to the other.
#include "pmukit/discovery/unit_overlap.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "pmukit/discovery/inventory.h"
#include "pmukit/regs/intel_pmon.h"

namespace pmukit::discovery {

namespace {

using regs::intel::AccessType;

// A CoreSight PMU's register frame, each of its two pages (Arm IHI 0091: 4 KB frames).
constexpr std::uint64_t kCoreSightPage = 0x1000;

// One register (or block) as an address range in its own space: MSR numbers are counted one per
// register, reached through the unit's CPU (uncore MSRs are per package: units of one package
// share a CPU); MMIO and config-space ranges are bytes. The space is a number (Spaces) so that
// sorting thousands of spans compares integers.
struct Span {
  std::size_t space = 0;  // index into Spaces::names
  std::uint64_t first = 0, last = 0;
  std::size_t unit = 0;
  auto key() const { return std::tie(space, first, last, unit); }
  bool operator<(const Span& o) const { return key() < o.key(); }
};

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

// What a family's footprint adds its ranges to.
struct Footprint {
  Spaces& spaces;
  std::vector<Span>& out;
  std::size_t unit;
  void add(std::size_t space, std::uint64_t first, std::uint64_t bytes) {
    if (bytes == 0) return;
    const std::uint64_t last = first + std::min<std::uint64_t>(bytes - 1, ~0ull - first);
    out.push_back({space, first, last, unit});
  }
  std::size_t mmio() { return spaces.of("MMIO"); }
  std::size_t config(const Bdf& bdf) { return spaces.of(fmt::format("{} config space", bdf.str())); }
};

AccessType access_type(RegAccess a) {
  return a == RegAccess::Msr ? AccessType::Msr : a == RegAccess::Mmio ? AccessType::Mmio : AccessType::Pci;
}

// Intel: every register of the box, as wide as regs/intel_pmon.h says its access is.
void footprint(const IntelUnit& iu, Footprint& f) {
  const auto w = regs::intel::widths(access_type(iu.access));
  const std::size_t space = iu.access == RegAccess::Msr    ? f.spaces.of(fmt::format("MSR (CPU {})", iu.msr_cpu))
                            : iu.access == RegAccess::Mmio ? f.mmio()
                            : iu.pci_device                ? f.config(*iu.pci_device)
                                                           : f.spaces.of("unknown config space");
  auto add = [&](std::uint64_t at, unsigned bits) { f.add(space, at, iu.access == RegAccess::Msr ? 1 : bits / 8); };
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

// CoreSight: its page 0 and (dual-page) page 1, whole.
void footprint(const CoreSightUnit& u, Footprint& f) {
  f.add(f.mmio(), u.base0, kCoreSightPage);
  if (u.base1 != u.base0) f.add(f.mmio(), u.base1, kCoreSightPage);
}

// DesignWare: the RAS DES capability in the root port's config space.
void footprint(const DwcUnit& u, Footprint& f) {
  f.add(f.config(u.root_port), u.vsec_offset, u.vsec_length);
}

// Tegra410 blocks: every instance's region and the broadcast region, when userspace sees them.
void footprint(const T410Unit& u, Footprint& f) {
  for (auto base : u.instance_bases) f.add(f.mmio(), base, u.region_size);
  if (u.broadcast_base) f.add(f.mmio(), *u.broadcast_base, u.region_size);
}

// Arm CMN: the configuration region.
void footprint(const CmnUnit& u, Footprint& f) {
  f.add(f.mmio(), u.base, u.size);
}

// A unit as a warning names it: its name, and where it came from when another unit has that name
// too (two APMT nodes on one page read the same identity, and take the same name).
std::string label(const PmuUnit& u, const PmuUnit& other) {
  if (u.name != other.name) return u.name;
  if (const auto* cs = u.as<CoreSightUnit>()) return fmt::format("{} (APMT node {})", u.name, cs->apmt_id);
  if (const auto* iu = u.as<IntelUnit>())
    return fmt::format("{} (table {} unit {})", u.name, iu->table, iu->table_index);
  return u.name;
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
  for (std::size_t i = 0; i < inventory.units.size(); ++i) {
    Footprint f{spaces, spans, i};
    std::visit([&](const auto& detail) { footprint(detail, f); }, inventory.units[i].detail);
  }
  std::sort(spans.begin(), spans.end());
  // Sorted by space and start: a range overlaps a later one of its space when that one starts
  // at or before its end. The shared register reported for a pair is where the later-starting
  // range begins, at its lowest over the pair's shared ranges.
  std::map<std::pair<std::size_t, std::size_t>, Span> pairs;
  for (std::size_t i = 0; i < spans.size(); ++i)
    for (std::size_t j = i + 1; j < spans.size() && spans[j].space == spans[i].space && spans[j].first <= spans[i].last;
         ++j)
      if (spans[j].unit != spans[i].unit) pairs.emplace(std::minmax(spans[i].unit, spans[j].unit), spans[j]);
  for (const auto& [pair, at] : pairs) {
    auto& a = inventory.units[pair.first];
    auto& b = inventory.units[pair.second];
    inventory.warnings.push_back(fmt::format("{} and {} claim the same register ({}): the discovery data places two "
                                             "units on one register block, and programming either changes the "
                                             "other; they are never programmed together",
                                             label(a, b), label(b, a), where(at, spaces)));
    a.notes.push_back(fmt::format("shares {} with {}", where(at, spaces), label(b, a)));
    b.notes.push_back(fmt::format("shares {} with {}", where(at, spaces), label(a, b)));
    a.shares_registers_with.push_back(b.name);
    b.shares_registers_with.push_back(a.name);
  }
  return pairs.size();
}

}  // namespace pmukit::discovery
