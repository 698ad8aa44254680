// pmukit -- typed registers: a register's place, width and bit fields declared together, in spec
// order [Hi:Lo], and values that carry the register they were read from.
//
// A field belongs to its register, and decodes only a value of that register:
//   struct Pmcfgr : Register<Pmcfgr, 0xe00, 32> {   // CoreSight PMCFGR (ARM IHI 0091)
//     using Size = Field<Pmcfgr, 13, 8>;             // counter width - 1
//   };
//   Pmcfgr::Size::get(read_register<Pmcfgr>(page0))  // a PMCR value or a bare integer: no overload
// A register whose place is run-time data (an Intel box control found by discovery, a CMN XP's
// DTC-domain register whose offset is part data), a word of a discovery record and a perf config
// word have a layout but no fixed offset: they derive from Word. Which registers a machine has and
// where its blocks are stays run-time data; only layouts and offsets inside a block are types.
#pragma once

#include <cstdint>
#include <type_traits>

namespace pmukit {

// Mask of the low `width` bits; width 64 gives all ones, width 0 gives 0.
constexpr std::uint64_t low_mask(unsigned width) {
  return width >= 64 ? ~0ull : width == 0 ? 0 : ((1ull << width) - 1);
}

// bits [hi:lo] of v, as Linux FIELD_GET / pciutils BITS().
constexpr std::uint64_t bits(std::uint64_t v, unsigned hi, unsigned lo) {
  return (v >> lo) & low_mask(hi - lo + 1);
}

// A bit layout `Width` bits wide, named by `Self`.
template <class Self, unsigned Width>
struct Word {
  static_assert(Width > 0 && Width <= 64, "a register is 1 to 64 bits wide");
  static constexpr unsigned width = Width;
};

// A register at byte `Offset` of its block (or page), `Width` bits wide.
template <class Self, std::uint64_t Offset, unsigned Width>
struct Register : Word<Self, Width> {
  static constexpr std::uint64_t offset = Offset;
};

// A value of register (or word) R: what a read of it returned, or what will be written to it.
// Made from a bare integer only explicitly, at the place that knows which register it came from.
template <class R>
struct RegValue {
  std::uint64_t raw = 0;

  constexpr RegValue() = default;
  constexpr explicit RegValue(std::uint64_t value) : raw(value) {}
  // Fields of one register put together: A::put(a) | B::put(b).
  friend constexpr RegValue operator|(RegValue a, RegValue b) { return RegValue{a.raw | b.raw}; }
  friend constexpr bool operator==(RegValue a, RegValue b) { return a.raw == b.raw; }
};

// Bits [Hi:Lo] of register R.
template <class R, unsigned Hi, unsigned Lo>
struct Field {
  static_assert(Hi >= Lo && Hi < R::width, "field bits must be [Hi:Lo] inside the register");
  using Of = R;
  static constexpr unsigned hi = Hi;
  static constexpr unsigned lo = Lo;
  static constexpr unsigned width = Hi - Lo + 1;
  static constexpr std::uint64_t mask = low_mask(width) << Lo;

  static constexpr std::uint64_t get(RegValue<R> v) { return (v.raw & mask) >> Lo; }
  // Returns v with this field replaced by `field` (extra high bits of `field` are dropped).
  static constexpr RegValue<R> set(RegValue<R> v, std::uint64_t field) {
    return RegValue<R>{(v.raw & ~mask) | ((field << Lo) & mask)};
  }
  static constexpr RegValue<R> clear(RegValue<R> v) { return set(v, 0); }
  // A value of R with only this field set: for building a value to write.
  static constexpr RegValue<R> put(std::uint64_t field) { return set(RegValue<R>{}, field); }
};

// Register R of the block a window (RegisterWindow) maps from `base` on: one load of R's width at
// R's offset, as a value of R.
template <class R, class Window>
RegValue<R> read_register(const Window& w, std::uint64_t base = 0) {
  static_assert(R::width == 32 || R::width == 64, "a window's registers are 32 or 64 bits");
  if constexpr (R::width == 32)
    return RegValue<R>{w.read32(base + R::offset)};
  else
    return RegValue<R>{w.read64(base + R::offset)};
}

// A register whose place is run-time data (a layout role's pmu::Reg), read through `io` (a
// RegisterIo, a WriteGuard, the simulator's registers) as a value of R, the register the caller's
// role names: the one step from a bare number to a value fields can decode.
template <class R, class Io, class Where>
RegValue<R> read_as(Io& io, const Where& where) {
  return RegValue<R>{io.read(where)};
}

// Compile-time check that two fields of one register do not overlap.
template <class A, class B>
constexpr bool disjoint() {
  static_assert(std::is_same_v<typename A::Of, typename B::Of>, "fields of one register");
  return (A::mask & B::mask) == 0;
}

}  // namespace pmukit
