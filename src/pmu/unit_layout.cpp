// pmukit -- a unit's layout: built by its family, looked up by role.
#include "pmukit/pmu/unit_layout.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/pmu/family_driver.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

std::string_view UnitLayout::role_name(RoleId role) const {
  static const std::string_view unnamed = "register";
  return role < role_names.size() ? role_names[role] : unnamed;
}

const UnitRegister* UnitLayout::find_id(RoleId role, unsigned index, unsigned instance) const {
  for (const auto& r : registers)
    if (r.role == role && r.index == index && r.instance == instance) return &r;
  return nullptr;
}

const Reg& UnitLayout::at_id(RoleId role, unsigned index, unsigned instance) const {
  if (const auto* r = find_id(role, index, instance)) return r->reg;
  throw Error(fmt::format("{}: no {} {} (instance {}) in its register layout", unit ? unit->name : "unit",
                          role_name(role), index, instance));
}

std::size_t UnitLayout::count_id(RoleId role) const {
  return static_cast<std::size_t>(
      std::count_if(registers.begin(), registers.end(), [&](const UnitRegister& r) { return r.role == role; }));
}

std::vector<unsigned> UnitLayout::indices_id(RoleId role) const {
  std::vector<unsigned> out;
  for (const auto& r : registers)
    if (r.role == role && r.instance == 0) out.push_back(r.index);
  return out;
}

std::vector<Reg> UnitLayout::owned() const {
  std::vector<Reg> out;
  for (const auto& r : registers)
    if (r.owned) out.push_back(r.reg);
  return out;
}

std::vector<Reg> UnitLayout::commands() const {
  std::vector<Reg> out;
  for (const auto& r : registers)
    if (r.command) out.push_back(r.reg);
  return out;
}

UnitLayout make_layout(const discovery::PmuUnit& unit, const platform::Database& db) {
  UnitLayout l;
  if (const FamilyDriver* f = family_driver(unit)) l = f->layout(unit, db);
  l.unit = &unit;
  return l;
}

}  // namespace pmukit::pmu
