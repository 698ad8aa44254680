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
// Each qword is a register of the record: its offset is the byte offset inside the record
// (uncore_discovery.h union uncore_global_discovery / uncore_unit_discovery, table1..table3).
constexpr unsigned kRecordBytes = 24;
struct GlobalTable1 : Register<GlobalTable1, 0, 64> {
  using Type = Field<GlobalTable1, 7, 0>;
  using Stride = Field<GlobalTable1, 15, 8>;  // in 8-byte units
  using MaxUnits = Field<GlobalTable1, 25, 16>;
  using AccessType = Field<GlobalTable1, 63, 62>;
};
struct GlobalCtl : Register<GlobalCtl, 8, 64> {};  // the global control's address
struct GlobalTable3 : Register<GlobalTable3, 16, 64> {
  using StatusOffset = Field<GlobalTable3, 7, 0>;
  using NumStatus = Field<GlobalTable3, 23, 8>;
};

struct UnitTable1 : Register<UnitTable1, 0, 64> {
  using NumRegs = Field<UnitTable1, 7, 0>;
  using CtlOffset = Field<UnitTable1, 15, 8>;
  using BitWidth = Field<UnitTable1, 23, 16>;
  using CtrOffset = Field<UnitTable1, 31, 24>;
  using StatusOffset = Field<UnitTable1, 39, 32>;
  using AccessType = Field<UnitTable1, 63, 62>;
};
struct UnitBoxCtl : Register<UnitBoxCtl, 8, 64> {};  // the box control's address (PciCtl for PCI boxes)
struct UnitTable3 : Register<UnitTable3, 16, 64> {
  using BoxType = Field<UnitTable3, 15, 0>;
  using BoxId = Field<UnitTable3, 31, 16>;
};
static_assert(disjoint<UnitTable1::NumRegs, UnitTable1::CtlOffset>() &&
              disjoint<UnitTable1::BitWidth, UnitTable1::CtrOffset>());
static_assert(disjoint<UnitTable3::BoxType, UnitTable3::BoxId>() &&
              disjoint<GlobalTable1::Stride, GlobalTable1::MaxUnits>());
// Qword W of a record read as three little-endian qwords.
template <class W>
constexpr RegValue<W> record_word(const std::uint64_t (&record)[3]) {
  static_assert(W::offset % 8 == 0 && W::offset < kRecordBytes && W::width == 64, "a qword of a record");
  return RegValue<W>{record[W::offset / 8]};
}

// Access types (enum uncore_access_type); 3 is unsupported.
enum class AccessType : std::uint8_t { Msr = 0, Mmio = 1, Pci = 2, Unknown = 3 };

// PCI-access unit control address: domain [30:28], bus [27:20], devfn [19:12], offset [11:0].
struct PciCtl : Word<PciCtl, 64> {
  using Domain = Field<PciCtl, 30, 28>;
  using Bus = Field<PciCtl, 27, 20>;
  using Devfn = Field<PciCtl, 19, 12>;
  using Offset = Field<PciCtl, 11, 0>;
};

// Register steps per access type (Linux uncore.h uncore_msr_event_ctl/uncore_msr_perf_ctr and
// uncore_pci_event_ctl/uncore_pci_perf_ctr, which uncore_discovery.c's
// intel_generic_uncore_assign_hw_event also uses for MMIO boxes): MSR controls and counters are
// consecutive MSRs; MMIO controls are 32-bit (4 bytes apart, 8 for CXL types:
// UNCORE_BOX_FLAG_CTL_OFFS8) and counters 64-bit; PCI controls and counters are 64-bit pairs of
// dwords.
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

// Boxes before the discovery tables (Skylake-SP, Cascade Lake, Ice Lake-SP; Linux uncore_snbep.c,
// the snbep/ivbep ops): a PCI box's counter controls are one config dword too
// (snbep_uncore_pci_enable_event: pci_write_config_dword), its counters a dword pair
// (snbep_uncore_pci_read_counter); MMIO boxes as the generic ones (snr_uncore_mmio_enable_event:
// writel; readq).
constexpr Widths snbep_widths(AccessType a) {
  return a == AccessType::Pci ? Widths{32, 32, 64, 32, 64} : widths(a);
}

// The box and counter controls are where a unit record says (their place is discovery's data);
// their width is widths()'s, the layouts below are the widest (MSR) form.
// ---- Box control (generic, SPR+) ----
struct BoxCtl : Word<BoxCtl, 64> {
  using Freeze = Field<BoxCtl, 0, 0>;
  using ResetCtrl = Field<BoxCtl, 8, 8>;
  using ResetCtrs = Field<BoxCtl, 9, 9>;
};
// ---- Box control (SNB-EP through Ice Lake-SP: SNBEP_PMON_BOX_CTL_*, Linux uncore_snbep.c) ----
// The ivbep init (IVBEP_PMON_BOX_CTL_INT) writes the two resets; enable_box/disable_box clear and
// set FRZ. Bit 16 (FRZ_EN) is SNB-EP's alone and pmukit never writes it.
struct SnbepBoxCtl : Word<SnbepBoxCtl, 64> {
  using ResetCtrl = Field<SnbepBoxCtl, 0, 0>;
  using ResetCtrs = Field<SnbepBoxCtl, 1, 1>;
  using Freeze = Field<SnbepBoxCtl, 8, 8>;
};
// ---- Counter control ----
struct CtrCtl : Word<CtrCtl, 64> {
  using Event = Field<CtrCtl, 7, 0>;
  using Umask = Field<CtrCtl, 15, 8>;
  using Reset = Field<CtrCtl, 17, 17>;
  using Edge = Field<CtrCtl, 18, 18>;
  // SNBEP_PMON_CTL_EN: a fixed counter's enable; before SPR every counter's (a counter counts only
  // with it set); reserved in SPR+ general controls.
  using Enable = Field<CtrCtl, 22, 22>;
  using Invert = Field<CtrCtl, 23, 23>;
  using Threshold = Field<CtrCtl, 31, 24>;
  using UmaskExt = Field<CtrCtl, 63, 32>;
};

}  // namespace pmukit::regs::intel
