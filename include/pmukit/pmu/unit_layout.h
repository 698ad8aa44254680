// pmukit -- a unit's registers, built once per discovered unit: every register with its role, where
// it is, how wide it is and how it is read and written, and the MMIO blocks that hold them.
//
// The layout is the one place the family's register map (families/<name>/<name>_regs.h) meets a
// discovered unit's addresses. The driver programs it, the session saves and restores what it
// owns, the simulator models it and pmu-discover shows it; none of them computes an address.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/register_io.h"

namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

// A register's role in its unit's layout: a value of its family's own role enum (IntelRole,
// CmnRole, ... in families/<name>/<name>_layout.h), whose names the layout carries for messages.
using RoleId = std::uint8_t;
template <class E>
concept RoleEnum = std::is_enum_v<E> && std::is_same_v<std::underlying_type_t<E>, RoleId>;

struct UnitRegister {
  RoleId role = 0;
  std::uint16_t index = 0;     // counter, bank, event or memory controller number within the role
  std::uint16_t instance = 0;  // Tegra410: the instance whose region holds it
  Reg reg;
  bool owned = true;     // saved before the first write and restored; false: only ever read
  bool command = false;  // each write is an action on what it selects (WriteGuard::commands)

  template <RoleEnum E>
  bool is(E r) const {
    return role == static_cast<RoleId>(r);
  }
};

struct MmioBlock {
  std::uint64_t base = 0;
  std::uint64_t size = 0;
};

struct UnitLayout {
  const discovery::PmuUnit* unit = nullptr;
  std::vector<UnitRegister> registers;           // in the order they are saved and put back
  std::vector<MmioBlock> blocks;                 // what must be mapped to reach the MMIO ones
  std::span<const std::string_view> role_names;  // the family's name of each role: "counter control", "PMCNTENSET"

  template <RoleEnum E>
  void add(E role, unsigned index, Reg reg, bool owned = true, unsigned instance = 0) {
    registers.push_back({static_cast<RoleId>(role), static_cast<std::uint16_t>(index),
                         static_cast<std::uint16_t>(instance), reg, owned});
  }
  template <RoleEnum E>
  const UnitRegister* find(E role, unsigned index = 0, unsigned instance = 0) const {
    return find_id(static_cast<RoleId>(role), index, instance);
  }
  // Throws Error naming the unit and the role when the layout has no such register.
  template <RoleEnum E>
  const Reg& at(E role, unsigned index = 0, unsigned instance = 0) const {
    return at_id(static_cast<RoleId>(role), index, instance);
  }
  template <RoleEnum E>
  std::size_t count(E role) const {
    return count_id(static_cast<RoleId>(role));
  }
  // The indices present, in layout order (instance 0).
  template <RoleEnum E>
  std::vector<unsigned> indices(E role) const {
    return indices_id(static_cast<RoleId>(role));
  }
  std::vector<Reg> owned() const;
  std::vector<Reg> commands() const;
  std::string_view role_name(RoleId role) const;  // "role 7" when the family names none

 private:
  const UnitRegister* find_id(RoleId role, unsigned index, unsigned instance) const;
  const Reg& at_id(RoleId role, unsigned index, unsigned instance) const;
  std::size_t count_id(RoleId role) const;
  std::vector<unsigned> indices_id(RoleId role) const;
};

// The layout of one discovered unit, as its family builds it (pmu/family_driver.h). Never throws: a
// unit whose registers cannot be located (Tegra410 regions userspace cannot see, a family that
// programs nothing) gets a layout without them, and make_driver says why.
UnitLayout make_layout(const discovery::PmuUnit& unit, const platform::Database& db);

}  // namespace pmukit::pmu
