// pmukit -- what AMD uncore discovery reads of the CPUs before it makes units: the cpuinfo flags
// the kernel tests (X86_FEATURE_PERFCTR_LLC, _PERFCTR_NB, _PERFMON_V2), the L3 groups, and per
// socket its CPUs and CPUID 0x80000022.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/cpuid.h"
#include "pmukit/discovery/family.h"
#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

struct AmdCpuFlags {
  bool llc = false;         // perfctr_llc: L3 counters (amd_uncore_llc_init)
  bool nb = false;          // perfctr_nb: Data Fabric counters (amd_uncore_nb_init)
  bool perfmon_v2 = false;  // perfmon_v2: CPUID 0x80000022 counts, UMC counters (amd_uncore_umc_init)
  bool topoext = false;     // topoext: without it amd_uncore_init registers nothing
  bool read = false;        // a flags line was found
};

struct AmdL3Group {
  int id = -1;  // cache/index3/id
  int package = -1;
  std::vector<int> cpus;  // online CPUs sharing it, ascending
};

struct AmdSocketFacts {
  int package = -1;
  std::vector<int> cpus;                 // online, ascending
  std::optional<CpuidRegs> ext_perfmon;  // CPUID 0x80000022 on cpus.front()
  std::string cpuid_why;                 // why it was not read
};

struct AmdCpuFacts {
  std::string generation;  // cpus.json amd_uncore ("zen4")
  unsigned cpu_family = 0;
  AmdCpuFlags flags;
  std::vector<AmdL3Group> l3_groups;
  std::vector<AmdSocketFacts> sockets;
};

// Reads them; what hides the counters (a flag the CPU does not show, an unreadable CPUID or cache
// file) becomes a warning in the inventory that names the file and what it lacks.
AmdCpuFacts read_amd_cpu_facts(const MachineFacts& facts, Inventory& inventory);

}  // namespace pmukit::discovery
