// pmukit -- Arm CoreSight PMU blocks found through the ACPI APMT: each node's page 0 (and page 1
// when dual-page) is mapped read-only, PMCFGR/PMCR/PMIIDR/PMPIDR are read, the block is identified
// from platforms/coresight/ (APMT impl_id over PMIIDR over PMPIDR, as Linux arm_cspmu does) and
// named as the kernel names it, with the socket from the node's processor affinity.
#pragma once

#include <cstdint>
#include <vector>

#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"
#include "pmukit/util/bits.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// CoreSight PMU architecture (ARM IHI 0091) registers of page 0 that discovery reads.
namespace cs {
constexpr std::uint64_t kPageBytes = 0x1000;  // Linux maps each page as 4 KiB (apmt.c SZ_4K)
constexpr std::uint64_t kPmcfgr = 0xe00;
constexpr std::uint64_t kPmcr = 0xe04;
constexpr std::uint64_t kPmiidr = 0xe08;
constexpr std::uint64_t kPmpidr4 = 0xfd0;
constexpr std::uint64_t kPmpidr0 = 0xfe0;    // PMPIDR1..3 follow at +4 each
constexpr unsigned kCycleCounterIndex = 31;  // ARM_CSPMU_CYCLE_CNTR_IDX

struct Pmcfgr;
using PmcfgrN = Field<Pmcfgr, 7, 0>;      // counters - 1
using PmcfgrSize = Field<Pmcfgr, 13, 8>;  // counter width - 1
using PmcfgrCc = Field<Pmcfgr, 14, 14>;   // cycle counter present
using PmcfgrNcg = Field<Pmcfgr, 31, 28>;  // counter groups - 1
struct Pmiidr;
using PmiidrImplementer = Field<Pmiidr, 11, 0>;
using PmiidrRevision = Field<Pmiidr, 15, 12>;
using PmiidrVariant = Field<Pmiidr, 19, 16>;
using PmiidrProduct = Field<Pmiidr, 31, 20>;

// PMIIDR rebuilt from PMPIDR0..4 when PMIIDR reads 0 (arm_cspmu.c, reference/hardware.md 2.3).
std::uint32_t pmiidr_from_pmpidr(const std::uint32_t pmpidr[5]);
}  // namespace cs

struct CoreSightStats {
  unsigned nodes = 0;
  unsigned mmaps = 0;
};

CoreSightStats discover_coresight(Machine& machine, const Topology& topology,
                                  const std::vector<acpi::AcpiDevice>& acpi_devices, Inventory& inventory);

}  // namespace pmukit::discovery
