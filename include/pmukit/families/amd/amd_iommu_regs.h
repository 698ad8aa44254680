// pmukit -- the AMD IOMMU performance counter register map: the IOMMU capability in the PCI
// function's config space, the few MMIO registers that say whether and how many counters there
// are, and the per-counter registers of the counter banks.
//
// Sources: Linux drivers/iommu/amd/amd_iommu_types.h (MMIO_EXT_FEATURES 0x30, FEATURE_PC bit 9,
// MMIO_CNTR_CONF_OFFSET 0x4000, MMIO_CNTR_REG_OFFSET 0x40000, MMIO_REG_END_OFFSET 0x80000),
// drivers/iommu/amd/init.c (init_iommu_perf_ctr: banks = (CNTR_CONF >> 12) & 0x3f, counters =
// (CNTR_CONF >> 7) & 0xf; iommu_pc_get_set_reg: offset ((0x40 | bank) << 12) | (counter << 8) |
// function, values masked to 48 bits, written low dword then high, read high dword then low;
// the rd890 resume path reads the base address at cap + 4 and cap + 8), arch/x86/events/amd/
// iommu.h (IOMMU_PC_*_REG) and iommu.c (the perf config fields), and AMD's "AMD I/O
// Virtualization Technology (IOMMU) Specification" (document 48882): the capability header
// (CapID 0Fh, CapType 011b in bits 18:16), IOMMU Base Address Low (Enable bit 0, BaseAddress
// 31:14) and High registers.
#pragma once

#include <cstdint>
#include <string_view>

#include "pmukit/util/bits.h"

namespace pmukit::regs::amd_iommu {

// ---- PCI: the IOMMU is a function of class 0806h (base class 08h system peripheral, subclass
// 06h IOMMU) whose capability list holds the IOMMU capability ----
constexpr std::uint32_t kClassIommu = 0x0806;  // class_code >> 8
constexpr std::uint8_t kCapId = 0x0f;          // PCI_CAP_ID_SECDEV: "Secure Device" capability

// Capability offsets from the capability's start (48882 "IOMMU Capability Header", Linux
// MMIO_CAP_HDR_OFFSET).
struct CapHeader : Register<CapHeader, 0x00, 32> {
  using CapId = Field<CapHeader, 7, 0>;
  using CapType = Field<CapHeader, 18, 16>;  // 011b: IOMMU
  using EfrSup = Field<CapHeader, 27, 27>;   // Linux IOMMU_CAP_EFR
};
constexpr unsigned kCapTypeIommu = 0x3;
struct BaseLow : Register<BaseLow, 0x04, 32> {
  using Enable = Field<BaseLow, 0, 0>;     // set by firmware; Linux: "Low bit locks writes to configuration space"
  using Address = Field<BaseLow, 31, 14>;  // BaseAddress[31:14]
};
struct BaseHigh : Register<BaseHigh, 0x08, 32> {};  // BaseAddress[63:32]
constexpr unsigned kCapSpan = 0x0c;                 // bytes of the capability discovery reads

// ---- MMIO, from the base address ----
// Extended Feature Register, read as two dwords (Linux: readl at 0x30 and 0x34).
struct ExtFeatures : Register<ExtFeatures, 0x30, 64> {
  using PcSup = Field<ExtFeatures, 9, 9>;  // FEATURE_PC: performance counters supported
};
// Counter configuration (Linux MMIO_CNTR_CONF_OFFSET, read with readl).
struct CntrConf : Register<CntrConf, 0x4000, 32> {
  using Counters = Field<CntrConf, 10, 7>;  // counters per bank
  using Banks = Field<CntrConf, 17, 12>;
};
constexpr std::uint64_t kCounterBase = 0x40000;  // MMIO_CNTR_REG_OFFSET: bank 0, counter 0
// The region Linux reserves ("amd_iommu" in /proc/iomem): MMIO_REG_END_OFFSET with counters, else
// MMIO_CNTR_CONF_OFFSET.
constexpr std::uint64_t kRegionSize = 0x80000, kRegionSizeWithoutCounters = 0x4000;
constexpr std::uint64_t kBankStride = 0x1000, kCounterStride = 0x100;

// The registers of one counter: 64-bit, of which the hardware keeps 48 bits (iommu_pc_get_set_reg
// masks GENMASK_ULL(47, 0)); no 64-bit access, written low dword first.
struct Counter : Register<Counter, 0x00, 64> {};      // IOMMU_PC_COUNTER_REG
struct CounterSrc : Register<CounterSrc, 0x08, 64> {  // IOMMU_PC_COUNTER_SRC_REG: the event; 0 stops it
  using Event = Field<CounterSrc, 7, 0>;
};
// The match registers (IOMMU_PC_PASID/DOMID/DEVID_MATCH_REG), as perf_iommu_enable_event writes
// them: the value in the low bits, bit 31 set when value or mask is non-zero, the mask at 32.
struct PasidMatch : Register<PasidMatch, 0x10, 64> {
  using Value = Field<PasidMatch, 19, 0>;
  using Enable = Field<PasidMatch, 31, 31>;
  using Mask = Field<PasidMatch, 51, 32>;
};
struct DomidMatch : Register<DomidMatch, 0x18, 64> {
  using Value = Field<DomidMatch, 15, 0>;
  using Enable = Field<DomidMatch, 31, 31>;
  using Mask = Field<DomidMatch, 47, 32>;
};
struct DevidMatch : Register<DevidMatch, 0x20, 64> {
  using Value = Field<DevidMatch, 15, 0>;
  using Enable = Field<DevidMatch, 31, 31>;
  using Mask = Field<DevidMatch, 47, 32>;
};
struct CounterReport : Register<CounterReport, 0x28, 64> {};  // IOMMU_PC_COUNTER_REPORT_REG (not used)
constexpr unsigned kCounterWidth = 48;
constexpr std::uint64_t kValueMask = (std::uint64_t{1} << kCounterWidth) - 1;  // what a write keeps

// Where register `function` of counter `counter` in bank `bank` is, from the MMIO base.
constexpr std::uint64_t counter_register(unsigned bank, unsigned counter, std::uint64_t function) {
  return kCounterBase + bank * kBankStride + counter * kCounterStride + function;
}
static_assert(counter_register(1, 2, CounterSrc::offset) == ((0x40u | 1u) << 12 | 2u << 8 | 0x08u));

// perf config of the amd_iommu_N PMUs (arch/x86/events/amd/iommu.c, format/).
struct PerfConfig : Word<PerfConfig, 64> {
  using Csource = Field<PerfConfig, 7, 0>;
  using Devid = Field<PerfConfig, 23, 8>;
  using Domid = Field<PerfConfig, 39, 24>;
  using Pasid = Field<PerfConfig, 59, 40>;
};
struct PerfConfig1 : Word<PerfConfig1, 64> {
  using DevidMask = Field<PerfConfig1, 15, 0>;
  using DomidMask = Field<PerfConfig1, 31, 16>;
  using PasidMask = Field<PerfConfig1, 51, 32>;
};

struct NamedRegister {
  std::string_view name;
  std::uint64_t offset;
};
// One counter's registers by name, in offset order: what pmu-discover and the JSON show.
constexpr NamedRegister kCounterRegisters[] = {
    {"COUNTER", Counter::offset},        {"COUNTER_SRC", CounterSrc::offset}, {"PASID_MATCH", PasidMatch::offset},
    {"DOMID_MATCH", DomidMatch::offset}, {"DEVID_MATCH", DevidMatch::offset}, {"COUNTER_REPORT", CounterReport::offset},
};

}  // namespace pmukit::regs::amd_iommu
