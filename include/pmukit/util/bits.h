// pmukit -- typed register fields, declared once in spec order [Hi:Lo].
//
// A Field is tied to a register tag, so a PMCFGR field cannot be applied to a PMCR value:
//   struct Pmcfgr;                        // CoreSight PMCFGR @ 0xE00 (ARM IHI 0091)
//   using PmcfgrSize = Field<Pmcfgr, 13, 8>;
//   PmcfgrSize::get(RegValue<Pmcfgr>{raw})
// Which registers exist and where is run-time data (discovery); only the layout is compile-time.
#pragma once

#include <cstdint>

namespace pmukit {

// Mask of the low `width` bits; width 64 gives all ones, width 0 gives 0.
constexpr std::uint64_t low_mask(unsigned width) {
  return width >= 64 ? ~0ull : width == 0 ? 0 : ((1ull << width) - 1);
}

// bits [hi:lo] of v, as Linux FIELD_GET / pciutils BITS().
constexpr std::uint64_t bits(std::uint64_t v, unsigned hi, unsigned lo) {
  return (v >> lo) & low_mask(hi - lo + 1);
}

template <class Reg>
struct RegValue {
  std::uint64_t raw = 0;
};

template <class Reg, unsigned Hi, unsigned Lo>
struct Field {
  static_assert(Hi >= Lo && Hi < 64, "field bits must be [Hi:Lo] inside 64 bits");
  static constexpr unsigned hi = Hi;
  static constexpr unsigned lo = Lo;
  static constexpr unsigned width = Hi - Lo + 1;
  static constexpr std::uint64_t mask = low_mask(width) << Lo;

  static constexpr std::uint64_t get(RegValue<Reg> v) { return (v.raw & mask) >> Lo; }
  static constexpr std::uint64_t get(std::uint64_t raw) { return (raw & mask) >> Lo; }
  // Returns v with this field replaced by `field` (extra high bits of `field` are dropped).
  static constexpr RegValue<Reg> set(RegValue<Reg> v, std::uint64_t field) {
    return RegValue<Reg>{(v.raw & ~mask) | ((field << Lo) & mask)};
  }
  static constexpr std::uint64_t put(std::uint64_t field) { return (field << Lo) & mask; }
};

// Compile-time check that two fields of one register do not overlap.
template <class A, class B>
constexpr bool disjoint() {
  return (A::mask & B::mask) == 0;
}

}  // namespace pmukit
