// pmukit -- Arm CoreSight PMU architecture registers (ARM IHI 0091; Linux arm_cspmu.h).
// Page 0 holds configuration, page 1 the counters and overflow status (page 1 = page 0 when the
// APMT node is not DUAL_PAGE).
#pragma once

#include <cstdint>

#include "pmukit/util/bits.h"

namespace pmukit::pmu::cspmu {

constexpr std::uint64_t kPageSize = 0x1000;
// page 1
constexpr std::uint32_t PMEVCNTR = 0x000;  // counter n at n*4 (<= 32-bit) or n*8 (wider)
constexpr std::uint32_t PMOVSCLR = 0xc80;  // + 4 * (n / 32); read, then write the bits back to clear
// page 0
constexpr std::uint32_t PMEVTYPER = 0x400;   // + 4n
constexpr std::uint32_t PMCCFILTR = 0x47c;   // cycle counter filter (PMEVTYPER slot 31)
constexpr std::uint32_t PMEVFILT2R = 0x800;  // + 4n
constexpr std::uint32_t PMEVFILTR = 0xa00;   // + 4n
constexpr std::uint32_t PMCNTENSET = 0xc00;  // + 4 * (n / 32), write 1 to set
constexpr std::uint32_t PMCNTENCLR = 0xc20;  // + 4 * (n / 32), write 1 to clear
constexpr std::uint32_t PMCFGR = 0xe00;
constexpr std::uint32_t PMCR = 0xe04;
constexpr std::uint32_t PMIIDR = 0xe08;
constexpr unsigned kCycleCounter = 31;  // ARM_CSPMU_CYCLE_CNTR_IDX

struct Pmcfgr;
using PmcfgrN = Field<Pmcfgr, 7, 0>;      // counters - 1
using PmcfgrSize = Field<Pmcfgr, 13, 8>;  // counter width - 1
using PmcfgrCc = Field<Pmcfgr, 14, 14>;   // cycle counter present
struct Pmcr;
using PmcrE = Field<Pmcr, 0, 0>;  // enable
using PmcrP = Field<Pmcr, 1, 1>;  // reset event counters
using PmcrC = Field<Pmcr, 2, 2>;  // reset cycle counter

}  // namespace pmukit::pmu::cspmu
