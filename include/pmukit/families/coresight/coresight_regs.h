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
constexpr std::uint32_t PMCFGR = 0xe00;
constexpr std::uint32_t PMCR = 0xe04;
constexpr std::uint32_t PMIIDR = 0xe08;
constexpr std::uint32_t PMPIDR4 = 0xfd0;
constexpr std::uint32_t PMPIDR0 = 0xfe0;  // PMPIDR1..3 follow at +4 each

constexpr unsigned kCountersPerBank = 32;  // SET/CLR/OVS banks: one bit per counter
constexpr unsigned kCycleCounter = 31;     // ARM_CSPMU_CYCLE_CNTR_IDX

struct Pmcfgr;
using PmcfgrN = Field<Pmcfgr, 7, 0>;      // counters - 1
using PmcfgrSize = Field<Pmcfgr, 13, 8>;  // counter width - 1
using PmcfgrCc = Field<Pmcfgr, 14, 14>;   // cycle counter present
using PmcfgrNcg = Field<Pmcfgr, 31, 28>;  // counter groups - 1
struct Pmcr;
using PmcrE = Field<Pmcr, 0, 0>;  // enable
using PmcrP = Field<Pmcr, 1, 1>;  // reset event counters
using PmcrC = Field<Pmcr, 2, 2>;  // reset cycle counter
struct Pmiidr;
using PmiidrImplementer = Field<Pmiidr, 11, 0>;
using PmiidrRevision = Field<Pmiidr, 15, 12>;
using PmiidrVariant = Field<Pmiidr, 19, 16>;
using PmiidrProduct = Field<Pmiidr, 31, 20>;
static_assert(disjoint<PmcrE, PmcrP>() && disjoint<PmcrP, PmcrC>() && disjoint<PmcfgrSize, PmcfgrCc>());

// PMIIDR rebuilt from PMPIDR0..4 when PMIIDR reads 0 (arm_cspmu.c arm_cspmu_get_pmiidr: part,
// designer, revision and revand fields of the peripheral ID registers).
constexpr std::uint32_t pmiidr_from_pmpidr(const std::uint32_t p[5]) {
  std::uint32_t part0 = p[0] & 0xff, part1 = p[1] & 0xf, des0 = (p[1] >> 4) & 0xf;
  std::uint32_t des1 = p[2] & 0x7, revision = (p[2] >> 4) & 0xf, revand = (p[3] >> 4) & 0xf, des2 = p[4] & 0xf;
  return des0 | des1 << 4 | des2 << 8 | revand << 12 | revision << 16 | part0 << 20 | part1 << 28;
}

}  // namespace pmukit::regs::coresight
