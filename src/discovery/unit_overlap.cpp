// pmukit -- no two discovered units may claim one register, whatever their families. A table that
// places two boxes on one block (an early gnr-2s description put I/O-die IIO boxes on the MSRs of
// a compute die's mdf_sbo boxes), or an APMT that lists two CoreSight nodes on one page, makes
// every write to one a write to the other.
#include "pmukit/discovery/unit_overlap.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

namespace {

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

// Collects one unit's ranges as spans of numbered spaces.
class Spans final : public Footprint {
 public:
  Spans(Spaces& spaces, std::vector<Span>& out) : spaces_(spaces), out_(out) {}
  void of_unit(std::size_t unit) { unit_ = unit; }

  void msr(int cpu, std::uint64_t first, std::uint64_t count) override {
    // A box's registers come one by one through one CPU: its space is named once.
    if (!msr_space_ || msr_space_->first != cpu) msr_space_.emplace(cpu, spaces_.of(fmt::format("MSR (CPU {})", cpu)));
    add(msr_space_->second, first, count);
  }
  void mmio(std::uint64_t first, std::uint64_t bytes) override { add(spaces_.of("MMIO"), first, bytes); }
  void config(const Bdf* function, std::uint64_t first, std::uint64_t bytes) override {
    add(spaces_.of(function ? fmt::format("{} config space", function->str()) : "unknown config space"), first, bytes);
  }

 private:
  void add(std::size_t space, std::uint64_t first, std::uint64_t size) {
    if (size == 0) return;
    const std::uint64_t last = first + std::min<std::uint64_t>(size - 1, ~0ull - first);
    out_.push_back({space, first, last, unit_});
  }
  Spaces& spaces_;
  std::vector<Span>& out_;
  std::size_t unit_ = 0;
  std::optional<std::pair<int, std::size_t>> msr_space_;  // the last MSR space's CPU and number
};

// A unit as a warning names it: its name, and where it came from when another unit has that name
// too (two APMT nodes on one page read the same identity, and take the same name).
std::string label(const PmuUnit& u, const PmuUnit& other) {
  if (u.name != other.name || !u.family) return u.name;
  std::string origin = u.family->origin(u);
  return origin.empty() ? u.name : fmt::format("{} ({})", u.name, origin);
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
  Spans footprints(spaces, spans);
  for (std::size_t i = 0; i < inventory.units.size(); ++i) {
    footprints.of_unit(i);
    if (const Family* family = inventory.units[i].family) family->footprint(inventory.units[i], footprints);
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
