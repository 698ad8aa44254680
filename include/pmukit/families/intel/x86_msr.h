// pmukit -- the architectural MSRs of Intel 64 and IA-32 processors (Intel SDM Vol. 4, "IA-32
// Architectural MSRs", Table 2-2): registers every core has, which no uncore PMON box may claim.
// A discovery table that places a box on one (a CHA at MSR 0x10, the time-stamp counter) is
// wrong, and programming the box would write the architectural register.
#pragma once

#include <cstdint>
#include <string_view>

namespace pmukit::regs::x86 {

struct MsrRange {
  std::uint32_t first, last;  // inclusive
  std::string_view name;      // the first register of the range, or the range's family
};

inline constexpr MsrRange kArchitecturalMsrs[] = {
    {0x0, 0x1, "IA32_P5_MC_ADDR/IA32_P5_MC_TYPE"},
    {0x6, 0x6, "IA32_MONITOR_FILTER_SIZE"},
    {0x10, 0x10, "IA32_TIME_STAMP_COUNTER"},
    {0x17, 0x17, "IA32_PLATFORM_ID"},
    {0x1b, 0x1b, "IA32_APIC_BASE"},
    {0x3a, 0x3b, "IA32_FEATURE_CONTROL/IA32_TSC_ADJUST"},
    {0x48, 0x49, "IA32_SPEC_CTRL/IA32_PRED_CMD"},
    {0x79, 0x79, "IA32_BIOS_UPDT_TRIG"},
    {0x8b, 0x8b, "IA32_BIOS_SIGN_ID"},
    {0x9b, 0x9b, "IA32_SMM_MONITOR_CTL"},
    {0xc1, 0xc8, "IA32_PMCx"},
    {0xe7, 0xe8, "IA32_MPERF/IA32_APERF"},
    {0xfe, 0xfe, "IA32_MTRRCAP"},
    {0x10a, 0x10b, "IA32_ARCH_CAPABILITIES/IA32_FLUSH_CMD"},
    {0x174, 0x176, "IA32_SYSENTER_CS/ESP/EIP"},
    {0x179, 0x17b, "IA32_MCG_CAP/STATUS/CTL"},
    {0x186, 0x18d, "IA32_PERFEVTSELx"},
    {0x198, 0x19c, "IA32_PERF_STATUS/CTL, IA32_CLOCK_MODULATION, IA32_THERM_INTERRUPT/STATUS"},
    {0x1a0, 0x1a0, "IA32_MISC_ENABLE"},
    {0x1b0, 0x1b2, "IA32_ENERGY_PERF_BIAS, IA32_PACKAGE_THERM_STATUS/INTERRUPT"},
    {0x1d9, 0x1d9, "IA32_DEBUGCTL"},
    {0x1f2, 0x1f3, "IA32_SMRR_PHYSBASE/PHYSMASK"},
    {0x200, 0x213, "IA32_MTRR_PHYSBASEx/PHYSMASKx"},
    {0x250, 0x250, "IA32_MTRR_FIX64K_00000"},
    {0x258, 0x259, "IA32_MTRR_FIX16K_x"},
    {0x268, 0x26f, "IA32_MTRR_FIX4K_x"},
    {0x277, 0x277, "IA32_PAT"},
    {0x280, 0x29f, "IA32_MCx_CTL2"},
    {0x2ff, 0x2ff, "IA32_MTRR_DEF_TYPE"},
    {0x309, 0x30c, "IA32_FIXED_CTRx"},
    {0x345, 0x345, "IA32_PERF_CAPABILITIES"},
    {0x38d, 0x392, "IA32_FIXED_CTR_CTRL, IA32_PERF_GLOBAL_x"},
    {0x3f1, 0x3f1, "IA32_PEBS_ENABLE"},
    {0x400, 0x47f, "IA32_MCx_CTL/STATUS/ADDR/MISC"},
    {0x480, 0x493, "IA32_VMX_x"},
    {0x4c1, 0x4c8, "IA32_A_PMCx"},
    {0x4d0, 0x4d0, "IA32_MCG_EXT_CTL"},
    {0x560, 0x561, "IA32_RTIT_OUTPUT_BASE/MASK_PTRS"},
    {0x570, 0x572, "IA32_RTIT_CTL/STATUS/CR3_MATCH"},
    {0x580, 0x587, "IA32_RTIT_ADDRx_A/B"},
    {0x600, 0x600, "IA32_DS_AREA"},
    {0x6a0, 0x6a8, "IA32_U_CET/S_CET, IA32_PLx_SSP, IA32_INTERRUPT_SSP_TABLE_ADDR"},
    {0x6e0, 0x6e0, "IA32_TSC_DEADLINE"},
    {0x770, 0x777, "IA32_PM_ENABLE, IA32_HWP_x"},
    {0x800, 0x8ff, "x2APIC registers"},
    {0xc80, 0xc82, "IA32_DEBUG_INTERFACE, IA32_L3_QOS_CFG/L2_QOS_CFG"},
    {0xc8d, 0xc8f, "IA32_QM_EVTSEL/QM_CTR, IA32_PQR_ASSOC"},
    {0xd10, 0xd8f, "IA32_L3_QOS_MASK_x/L2_QOS_MASK_x"},
    {0xd90, 0xd90, "IA32_BNDCFGS"},
    {0xda0, 0xda0, "IA32_XSS"},
    {0xdb0, 0xdb1, "IA32_PKG_HDC_CTL/IA32_PM_CTL1"},
    {0x1200, 0x121f, "IA32_LBR_x_INFO"},
    {0x14ce, 0x14cf, "IA32_LBR_CTL/DEPTH"},
    {0x1500, 0x151f, "IA32_LBR_x_FROM_IP"},
    {0x1600, 0x161f, "IA32_LBR_x_TO_IP"},
    {0xc0000080, 0xc0000084, "IA32_EFER, IA32_STAR/LSTAR/CSTAR/FMASK"},
    {0xc0000100, 0xc0000103, "IA32_FS_BASE/GS_BASE/KERNEL_GS_BASE/TSC_AUX"},
};

// The architectural range holding `msr`, or nullptr.
constexpr const MsrRange* architectural_msr(std::uint64_t msr) {
  for (const auto& r : kArchitecturalMsrs)
    if (msr >= r.first && msr <= r.last) return &r;
  return nullptr;
}

}  // namespace pmukit::regs::x86
