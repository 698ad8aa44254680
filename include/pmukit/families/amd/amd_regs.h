// pmukit -- the AMD uncore counters reached through MSRs: L3 (one PMU per CCX), Data Fabric (one per
// socket) and UMC (one per active memory channel), as Linux arch/x86/events/amd/uncore.c programs
// them, with the MSR numbers of arch/x86/include/asm/msr-index.h and the control words of
// arch/x86/include/asm/perf_event.h; the CPUID leaf that counts them is AMD's PPR "CPUID_Fn80000022"
// (Extended Performance Monitoring and Debug).
//
// Every counter is a pair of MSRs: its control PERF_CTL at base + 2i, its count PERF_CTR at
// base + 2i + 1 (amd_uncore_add: config_base = msr_base + 2 * idx, event_base = msr_base + 1 + 2 * idx).
// The counts are 48 bits wide (COUNTER_SHIFT 16 in amd_uncore_read).
#pragma once

#include <cstdint>

#include "pmukit/util/bits.h"

namespace pmukit::regs::amd {

// ---- MSR bases (msr-index.h) ----
constexpr std::uint32_t kL3PerfCtl = 0xc0010230;   // MSR_F16H_L2I_PERF_CTL: L3 counters on family 17h and later
constexpr std::uint32_t kDfPerfCtl = 0xc0010240;   // MSR_F15H_NB_PERF_CTL: Data Fabric counters on family 17h and later
constexpr std::uint32_t kUmcPerfCtl = 0xc0010800;  // MSR_F19H_UMC_PERF_CTL: UMC counters (PerfMonV2)
constexpr unsigned kL3Counters = 6;                // NUM_COUNTERS_L3
constexpr unsigned kDfCountersV1 = 4;              // NUM_COUNTERS_NB: without PerfMonV2
constexpr unsigned kCounterWidth = 48;             // COUNTER_SHIFT 16: 64 - 16

// The control of an L3 or Data Fabric counter (PPR ChL3PmcCfg / DF PerfMonCtl; the kernel's
// ARCH_PERFMON_EVENTSEL_* and AMD64_* masks).
struct PerfCtl : Word<PerfCtl, 64> {
  using Event = Field<PerfCtl, 7, 0>;        // ARCH_PERFMON_EVENTSEL_EVENT
  using Umask = Field<PerfCtl, 15, 8>;       // ARCH_PERFMON_EVENTSEL_UMASK
  using Enable = Field<PerfCtl, 22, 22>;     // ARCH_PERFMON_EVENTSEL_ENABLE: what start() adds
  using UmaskHi = Field<PerfCtl, 27, 24>;    // PerfMonV2 DF: AMD64_PERFMON_V2_EVENTSEL_UMASK_NB bits 27:24
  using EventHi = Field<PerfCtl, 35, 32>;    // AMD64_EVENTSEL_EVENT bits 35:32
  using EventHiV2 = Field<PerfCtl, 37, 36>;  // PerfMonV2 DF: AMD64_PERFMON_V2_EVENTSEL_EVENT_NB bits 37:36
  // Family 19h and later L3 (AMD64_L3_*): which cores, slices and threads an L3 event counts.
  using CoreId = Field<PerfCtl, 44, 42>;       // AMD64_L3_COREID_MASK
  using EnAllSlices = Field<PerfCtl, 46, 46>;  // AMD64_L3_EN_ALL_SLICES
  using EnAllCores = Field<PerfCtl, 47, 47>;   // AMD64_L3_EN_ALL_CORES
  using SliceId = Field<PerfCtl, 50, 48>;      // AMD64_L3_SLICEID_MASK
  using ThreadMask2 = Field<PerfCtl, 57, 56>;  // AMD64_L3_F19H_THREAD_MASK
  // Family 17h L3.
  using SliceMask = Field<PerfCtl, 51, 48>;    // AMD64_L3_SLICE_MASK
  using ThreadMask8 = Field<PerfCtl, 63, 56>;  // AMD64_L3_THREAD_MASK
};

// AMD64_RAW_EVENT_MASK_NB: what the kernel keeps of attr.config for L3 and (before PerfMonV2) DF.
constexpr std::uint64_t kRawEventMaskNb = PerfCtl::Event::mask | PerfCtl::Umask::mask | PerfCtl::EventHi::mask;
// AMD64_PERFMON_V2_RAW_EVENT_MASK_NB: the DF mask with PerfMonV2.
constexpr std::uint64_t kRawEventMaskNbV2 = kRawEventMaskNb | PerfCtl::UmaskHi::mask | PerfCtl::EventHiV2::mask;
// The family 19h L3 fields a user may give (l3_thread_slice_mask keeps them when a thread mask is given).
constexpr std::uint64_t kL3F19hUserMask = PerfCtl::ThreadMask2::mask | PerfCtl::SliceId::mask |
                                          PerfCtl::EnAllCores::mask | PerfCtl::EnAllSlices::mask |
                                          PerfCtl::CoreId::mask;

// The control of a UMC counter (PerfMonV2; perf_event.h AMD64_PERFMON_V2_*_UMC).
struct UmcPerfCtl : Word<UmcPerfCtl, 64> {
  using Event = Field<UmcPerfCtl, 7, 0>;     // AMD64_PERFMON_V2_EVENTSEL_EVENT_UMC
  using RdWrMask = Field<UmcPerfCtl, 9, 8>;  // AMD64_PERFMON_V2_EVENTSEL_RDWRMASK_UMC
  using Enable = Field<UmcPerfCtl, 31, 31>;  // AMD64_PERFMON_V2_ENABLE_UMC
};
constexpr std::uint64_t kRawEventMaskUmc = UmcPerfCtl::Event::mask | UmcPerfCtl::RdWrMask::mask;

// CPUID Fn8000_0022 (union cpuid_0x80000022_ebx in perf_event.h): the counters PerfMonV2 parts have.
struct Cpuid80000022Ebx : Word<Cpuid80000022Ebx, 32> {
  using NumCorePmc = Field<Cpuid80000022Ebx, 3, 0>;
  using LbrV2StackSize = Field<Cpuid80000022Ebx, 9, 4>;
  using NumDfPmc = Field<Cpuid80000022Ebx, 15, 10>;
  using NumUmcPmc = Field<Cpuid80000022Ebx, 21, 16>;
};
// The counter counts of Fn8000_0022 EBX, as the kernel takes them (ebx.split.num_df_pmc / num_umc_pmc).
constexpr unsigned df_counters(std::uint32_t ebx) {
  return static_cast<unsigned>(Cpuid80000022Ebx::NumDfPmc::get(RegValue<Cpuid80000022Ebx>{ebx}));
}
constexpr unsigned umc_counters(std::uint32_t ebx) {
  return static_cast<unsigned>(Cpuid80000022Ebx::NumUmcPmc::get(RegValue<Cpuid80000022Ebx>{ebx}));
}
constexpr std::uint32_t kCpuidExtPerfmon = 0x80000022;   // EXT_PERFMON_DEBUG_FEATURES; ECX = the active UMC mask
constexpr std::uint32_t kCpuidMaxExtended = 0x80000000;  // EAX = the highest extended leaf

static_assert(disjoint<PerfCtl::Enable, PerfCtl::UmaskHi>() && disjoint<UmcPerfCtl::Enable, UmcPerfCtl::RdWrMask>());

}  // namespace pmukit::regs::amd
