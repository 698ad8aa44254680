// pmukit -- the Arm CoreSight PMU architecture register map (ARM IHI 0091; Linux arm_cspmu.h).
//
// Byte offsets inside a block's 4 KiB pages: page 0 holds configuration, page 1 the counters and
// the overflow status (page 1 is page 0 when the APMT node is not DUAL_PAGE). Declared once here:
// discovery reads the ID registers, the driver programs the rest, the simulator models them and
// the snapshot writer fills them in.
#pragma once

#include <cstdint>

#include "pmukit/util/bits.h"

namespace pmukit::regs::coresight {

constexpr std::uint64_t kPageBytes = 0x1000;  // Linux maps each page as 4 KiB (apmt.c SZ_4K)

// ---- page 1 ----
constexpr std::uint32_t PMEVCNTR = 0x000;  // counter n at n*4 (<= 32-bit) or n*8 (wider)
constexpr std::uint32_t PMOVSCLR = 0xc80;  // + 4 * (n / 32); read, then write the bits back to clear
// ---- page 0 ----
constexpr std::uint32_t PMEVTYPER = 0x400;   // + 4n
constexpr std::uint32_t PMCCFILTR = 0x47c;   // cycle counter filter (PMEVTYPER slot 31)
constexpr std::uint32_t PMEVFILT2R = 0x800;  // + 4n
constexpr std::uint32_t PMEVFILTR = 0xa00;   // + 4n
constexpr std::uint32_t PMCNTENSET = 0xc00;  // + 4 * (n / 32), write 1 to set
constexpr std::uint32_t PMCNTENCLR = 0xc20;  // + 4 * (n / 32), write 1 to clear

constexpr unsigned kCountersPerBank = 32;  // SET/CLR/OVS banks: one bit per counter
constexpr unsigned kCycleCounter = 31;     // ARM_CSPMU_CYCLE_CNTR_IDX

// The registers discovery decodes, each with its fields.
struct Pmcfgr : Register<Pmcfgr, 0xe00, 32> {  // configuration
  using N = Field<Pmcfgr, 7, 0>;               // counters - 1
  using Size = Field<Pmcfgr, 13, 8>;           // counter width - 1
  using Cc = Field<Pmcfgr, 14, 14>;            // cycle counter present
  using Ncg = Field<Pmcfgr, 31, 28>;           // counter groups - 1
};
struct Pmcr : Register<Pmcr, 0xe04, 32> {  // control
  using E = Field<Pmcr, 0, 0>;             // enable
  using P = Field<Pmcr, 1, 1>;             // reset event counters
  using C = Field<Pmcr, 2, 2>;             // reset cycle counter
};
struct Pmiidr : Register<Pmiidr, 0xe08, 32> {  // implementation identification
  using Implementer = Field<Pmiidr, 11, 0>;
  using Revision = Field<Pmiidr, 15, 12>;
  using Variant = Field<Pmiidr, 19, 16>;
  using Product = Field<Pmiidr, 31, 20>;
};
// The peripheral ID registers (CoreSight architecture; arm_cspmu.c PMPIDR*_* fields): what
// identifies a block whose PMIIDR reads 0.
struct Pmpidr0 : Register<Pmpidr0, 0xfe0, 32> {
  using Part0 = Field<Pmpidr0, 7, 0>;
};
struct Pmpidr1 : Register<Pmpidr1, 0xfe4, 32> {
  using Part1 = Field<Pmpidr1, 3, 0>;
  using Des0 = Field<Pmpidr1, 7, 4>;
};
struct Pmpidr2 : Register<Pmpidr2, 0xfe8, 32> {
  using Des1 = Field<Pmpidr2, 2, 0>;
  using Revision = Field<Pmpidr2, 7, 4>;
};
struct Pmpidr3 : Register<Pmpidr3, 0xfec, 32> {
  using Revand = Field<Pmpidr3, 7, 4>;
};
struct Pmpidr4 : Register<Pmpidr4, 0xfd0, 32> {
  using Des2 = Field<Pmpidr4, 3, 0>;
};
struct PeripheralIds {
  RegValue<Pmpidr0> p0;
  RegValue<Pmpidr1> p1;
  RegValue<Pmpidr2> p2;
  RegValue<Pmpidr3> p3;
  RegValue<Pmpidr4> p4;
};
static_assert(disjoint<Pmcr::E, Pmcr::P>() && disjoint<Pmcr::P, Pmcr::C>() && disjoint<Pmcfgr::Size, Pmcfgr::Cc>());
static_assert(disjoint<Pmiidr::Implementer, Pmiidr::Revision>() && disjoint<Pmiidr::Variant, Pmiidr::Product>());

// PMIIDR rebuilt from PMPIDR0..4 when PMIIDR reads 0 (arm_cspmu.c arm_cspmu_get_pmiidr: part,
// designer, revision and revand fields of the peripheral ID registers).
constexpr RegValue<Pmiidr> pmiidr_from_pmpidr(const PeripheralIds& p) {
  const std::uint64_t designer =
      Pmpidr1::Des0::get(p.p1) | Pmpidr2::Des1::get(p.p2) << 4 | Pmpidr4::Des2::get(p.p4) << 8;
  const std::uint64_t part = Pmpidr0::Part0::get(p.p0) | Pmpidr1::Part1::get(p.p1) << 8;
  return Pmiidr::Implementer::put(designer) | Pmiidr::Revision::put(Pmpidr3::Revand::get(p.p3)) |
         Pmiidr::Variant::put(Pmpidr2::Revision::get(p.p2)) | Pmiidr::Product::put(part);
}

}  // namespace pmukit::regs::coresight
