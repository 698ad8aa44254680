// pmukit -- the Intel uncore PMON register map: where the discovery table is, how its records are
// laid out, and the generic box and counter controls they point at (SPR and later).
// Linux arch/x86/events/intel/uncore_discovery.{c,h} and uncore_snbep.c (SNBEP_PMON_CTL_*).
// Records are little-endian qwords decoded with explicit fields, never C bitfields.
#pragma once

#include <cstdint>

#include "pmukit/util/bits.h"

namespace pmukit::regs::intel {

// ---- Finding the table ----
constexpr std::uint16_t kVendorIntel = 0x8086;
constexpr std::uint16_t kDvsecIdPmon = 0x0001;  // DVSEC ID (dword at cap+0x8, bits 15:0)
// The device Linux looks for the discovery DVSEC on first (uncore_discovery.h
// UNCORE_DISCOVERY_TABLE_DEVICE); the DVSEC is in its extended config space (0x100 and up).
constexpr std::uint16_t kDiscoveryTableDevice = 0x09a7;
constexpr unsigned kDvsecIdOffset = 0x8;
constexpr unsigned kDvsecBirOffset = 0xc;  // bits 2:0 = BIR; any other bit set: reject
constexpr std::uint32_t kDvsecBirMask = 0x7;
constexpr unsigned kBar0Offset = 0x10;                 // BAR register = 0x10 + 4 * BIR
constexpr std::uint32_t kBarMemMask = ~0xfu;           // PCI_BASE_ADDRESS_MEM_MASK
constexpr std::uint32_t kBarMemType64 = 0x4;           // PCI_BASE_ADDRESS_MEM_TYPE_64
constexpr std::uint32_t kMsrDiscovery = 0x201e;        // UNCORE_DISCOVERY_MSR: table address
constexpr std::uint32_t kMsrCbbDiscovery = 0x710;      // CBB_UNCORE_DISCOVERY_MSR (DMR)
constexpr std::uint32_t kMsrPackageDiscovery = 0x711;  // PACKAGE_UNCORE_DISCOVERY_MSR

// ---- Records: 3 qwords each; unit i sits at base + (i + 1) * stride * 8 ----
constexpr unsigned kRecordBytes = 24;
struct GlobalTable1;  // qword 0 of the global record
using GlobalType = Field<GlobalTable1, 7, 0>;
using GlobalStride = Field<GlobalTable1, 15, 8>;  // in 8-byte units
using GlobalMaxUnits = Field<GlobalTable1, 25, 16>;
using GlobalAccessType = Field<GlobalTable1, 63, 62>;
struct GlobalTable3;  // qword 2 of the global record
using GlobalStatusOffset = Field<GlobalTable3, 7, 0>;
using GlobalNumStatus = Field<GlobalTable3, 23, 8>;

struct UnitTable1;  // qword 0 of a unit record
using UnitNumRegs = Field<UnitTable1, 7, 0>;
using UnitCtlOffset = Field<UnitTable1, 15, 8>;
using UnitBitWidth = Field<UnitTable1, 23, 16>;
using UnitCtrOffset = Field<UnitTable1, 31, 24>;
using UnitStatusOffset = Field<UnitTable1, 39, 32>;
using UnitAccessType = Field<UnitTable1, 63, 62>;
struct UnitTable3;  // qword 2 of a unit record
using UnitBoxType = Field<UnitTable3, 15, 0>;
using UnitBoxId = Field<UnitTable3, 31, 16>;
static_assert(disjoint<UnitNumRegs, UnitCtlOffset>() && disjoint<UnitBitWidth, UnitCtrOffset>());
static_assert(disjoint<UnitBoxType, UnitBoxId>() && disjoint<GlobalStride, GlobalMaxUnits>());

// Access types (enum uncore_access_type); 3 is unsupported.
enum class AccessType : std::uint8_t { Msr = 0, Mmio = 1, Pci = 2, Unknown = 3 };

// PCI-access unit control address: domain [30:28], bus [27:20], devfn [19:12], offset [11:0].
struct PciCtl;
using PciCtlDomain = Field<PciCtl, 30, 28>;
using PciCtlBus = Field<PciCtl, 27, 20>;
using PciCtlDevfn = Field<PciCtl, 19, 12>;
using PciCtlOffset = Field<PciCtl, 11, 0>;

// Register steps per access type (hardware.md 1.5): MSR controls and counters are consecutive
// MSRs; MMIO controls are 32-bit (4 bytes apart, 8 for CXL types) and counters 64-bit; PCI
// controls and counters are 64-bit pairs of dwords.
constexpr unsigned kMmioCtlStep = 4;
constexpr unsigned kMmioCtrStep = 8;
constexpr unsigned kPciStep = 8;
constexpr std::uint64_t kMmioBoxMapSize = 0x4000;  // UNCORE_GENERIC_MMIO_SIZE

// Access widths in bits, the one statement of the rule: MSRs are 64-bit (wrmsrl); an MMIO box's
// controls are written with writel and its counters read with readq; a PCI box control is one
// config dword (intel_generic_uncore_pci_init_box), its counter controls and counters are two
// (spr_uncore_pci_enable_event writes the high dword first; the counters are read as a pair).
struct Widths {
  unsigned box_ctl, ctl, ctr, fixed_ctl, filter;
};
constexpr Widths widths(AccessType a) {
  switch (a) {
  case AccessType::Mmio:
    return {32, 32, 64, 32, 64};
  case AccessType::Pci:
    return {32, 64, 64, 32, 64};
  default:
    return {64, 64, 64, 64, 64};
  }
}

// ---- Box control (generic, SPR+) ----
struct BoxCtl;
using BoxCtlFreeze = Field<BoxCtl, 0, 0>;
using BoxCtlResetCtrl = Field<BoxCtl, 8, 8>;
using BoxCtlResetCtrs = Field<BoxCtl, 9, 9>;
// ---- Counter control ----
struct CtrCtl;
using CtrCtlEvent = Field<CtrCtl, 7, 0>;
using CtrCtlUmask = Field<CtrCtl, 15, 8>;
using CtrCtlReset = Field<CtrCtl, 17, 17>;
using CtrCtlEdge = Field<CtrCtl, 18, 18>;
using CtrCtlEnable =
    Field<CtrCtl, 22, 22>;  // SNBEP_PMON_CTL_EN: a fixed counter's enable; reserved in SPR+ general controls
using CtrCtlInvert = Field<CtrCtl, 23, 23>;
using CtrCtlThreshold = Field<CtrCtl, 31, 24>;
using CtrCtlUmaskExt = Field<CtrCtl, 63, 32>;

}  // namespace pmukit::regs::intel
