// pmukit -- an AMD uncore PMU reached through MSRs (Linux arch/x86/events/amd/uncore.c): an L3 of
// one CCX, the Data Fabric of one socket, or one active UMC (memory channel) of a socket.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

struct AmdUnit {
  enum class Kind { L3, Df, Umc };
  Kind kind = Kind::L3;
  std::string generation;   // "zen4": platforms/cpus.json's amd_uncore for the CPU model
  unsigned cpu_family = 0;  // 0x19
  // How the kernel fills in an L3 event's thread selection (l3_thread_slice_mask), decided by the
  // L3 kind's formats (platforms/pmus/amd.json): family 17h's slicemask/threadmask (8 bits), or
  // family 19h's threadmask (2 bits) with enallslices/enallcores.
  enum class L3Selection { SliceAndThreadMasks, ThreadMaskAndEnables };
  L3Selection l3_selection = L3Selection::ThreadMaskAndEnables;
  int cpu = -1;                // the CPU whose MSRs reach it: the first online CPU of its CCX or socket
  std::vector<int> cpus;       // the CPUs it serves (L3: cache/index3/shared_cpu_list; DF, UMC: the socket)
  int l3_id = -1;              // L3: cache/index3/id
  int umc = -1;                // UMC: N of amd_umc_N (numbered across sockets, as the kernel does)
  int umc_channel = -1;        // UMC: its bit in the socket's active-UMC mask (CPUID 0x80000022 ECX)
  std::uint32_t msr_base = 0;  // PERF_CTL of counter 0; counter i at msr_base + 2i, its count + 1
  bool perfmon_v2 = false;     // the CPU has PerfMonV2 (cpuinfo flag perfmon_v2)
  std::string counters_from;   // "CPUID 0x80000022 EBX[15:10] = 16 on CPU 0", "NUM_COUNTERS_L3 (uncore.c)"

  static const Family& family();
};

}  // namespace pmukit::discovery
