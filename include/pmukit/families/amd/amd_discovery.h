// pmukit -- AMD uncore units from what Linux shows of the CPUs: /proc/cpuinfo (vendor, family,
// model, the perfctr_llc / perfctr_nb / perfmon_v2 flags), the L3 each CPU shares
// (cache/index3/id and shared_cpu_list) and CPUID 0x80000022 (counter counts, active UMCs) read
// through /dev/cpu/N/cpuid -- the facts Linux arch/x86/events/amd/uncore.c builds its PMUs from.
#pragma once

#include "pmukit/discovery/family.h"
#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

// Appends amd_l3 (one per L3), amd_df (one per socket) and amd_umc_N (one per active UMC) units
// when the CPU model is one platforms/cpus.json gives an amd_uncore generation. Returns how many.
unsigned discover_amd_uncore(const MachineFacts& facts, Inventory& inventory);

}  // namespace pmukit::discovery
