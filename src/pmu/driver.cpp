// pmukit -- a unit's driver, from its family (family_driver.h); sample plans and verdicts in words.
#include "pmukit/pmu/driver.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/pmu/family_driver.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

std::size_t SamplePlan::add(const std::vector<Reg>& regs, unsigned width, std::uint64_t multiplier) {
  Counter c;
  c.first = static_cast<std::uint32_t>(loads.size());
  c.count = static_cast<std::uint32_t>(regs.size());
  c.width = width;
  c.multiplier = multiplier;
  loads.insert(loads.end(), regs.begin(), regs.end());
  slices.resize(loads.size());
  counters.push_back(c);
  return counters.size() - 1;
}

std::size_t SamplePlan::add(const Reg& reg, unsigned width, std::uint64_t multiplier) {
  Counter c;
  c.first = static_cast<std::uint32_t>(loads.size());
  c.width = width;
  c.multiplier = multiplier;
  loads.push_back(reg);
  slices.emplace_back();
  counters.push_back(c);
  return counters.size() - 1;
}

std::size_t SamplePlan::add_sliced(const std::vector<Reg>& regs, const std::vector<Slice>& parts, unsigned width) {
  const std::size_t first = loads.size();
  const std::size_t i = add(regs, width);
  std::copy(parts.begin(), parts.end(), slices.begin() + static_cast<std::ptrdiff_t>(first));
  return i;
}

const FamilyDriver* family_driver(const discovery::PmuUnit& unit) {
  return dynamic_cast<const FamilyDriver*>(unit.family);
}

std::string above_counter_width(const discovery::PmuUnit& unit, std::uint64_t value) {
  const unsigned width = unit.counter_width;
  if (width == 0 || width >= 64 || value >> width == 0) return "";
  return fmt::format("a {}-bit counter", width);
}

std::unique_ptr<UnitDriver> make_driver(const UnitLayout& layout, const platform::Database& db) {
  if (const FamilyDriver* f = family_driver(*layout.unit)) return f->driver(layout, db);
  throw Error(
      fmt::format("{}: pmukit cannot program {} units", layout.unit->name, discovery::family_name(*layout.unit)));
}

std::string describe(const Verdict& v, const std::string& unit_name) {
  struct Words {
    const std::string& unit;
    std::string operator()(const Ok&) const { return unit + ": ok"; }
    std::string operator()(const NoDriver& n) const { return n.why; }
    std::string operator()(const NoAccess& n) const { return fmt::format("{}: {}", unit, n.why); }
    std::string operator()(const Busy& b) const { return fmt::format("{}: in use: {}", unit, b.what); }
    std::string operator()(const DoesNotFit& d) const { return d.reason; }
  };
  return std::visit(Words{unit_name}, v);
}

}  // namespace pmukit::pmu
