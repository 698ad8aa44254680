// pmukit -- the single dispatch from a discovered unit's family to its driver; sample plans and
// verdicts in words.
#include "pmukit/pmu/driver.h"

#include <algorithm>

#include <fmt/format.h>

#include "drivers.h"

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

std::unique_ptr<UnitDriver> make_driver(const UnitLayout& layout, const platform::Database& db) {
  switch (layout.unit->family) {
  case discovery::Family::IntelUncore:
    return make_intel_box(layout, db);
  case discovery::Family::CoreSight:
    return make_coresight(layout, db);
  case discovery::Family::DwcRasDes:
    return make_dwc_rasdes(layout);
  case discovery::Family::T410C2c:
  case discovery::Family::T410CmemLatency:
    return make_t410_block(layout);
  case discovery::Family::Cmn:
    return make_cmn(layout, db);
  }
  throw Error(fmt::format("{}: unknown PMU family", layout.unit->name));
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
