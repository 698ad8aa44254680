// pmukit -- Arm CMN-600/650/700 and CI-700 mesh registers: the node tree discovery walks and the
// DTM/DTC blocks counting programs.
//
// Offsets and fields are those Linux drivers/perf/arm-cmn.c programs (the CMN_* macros at the top
// of the file, read with arm_cmn_discover(), arm_cmn_init_dtm(), arm_cmn_init_dtc()); where a field
// is not used by the kernel, the source is named beside it (Arm SCP-firmware module/cmn700,
// Arm cmn-tools). What differs between parts (the width of the child offset, which XP register
// holds the DTC domain, how many ports have a connect-info register) is data, in
// platforms/arm/cmn.json; this file holds only layouts.
//
// Every node owns a register block (16 KiB on CMN-600..700); its PMU registers start at
// kPmuPage inside the block. All registers are 64 bits wide and little-endian.
#pragma once

#include <cstdint>

#include "pmukit/util/bits.h"

namespace pmukit::regs::cmn {

// ---- every node -------------------------------------------------------------------------------

// por_*_node_info @ 0x0 (arm-cmn.c CMN_NODE_INFO, CMN_NI_*).
struct NodeInfo : Register<NodeInfo, 0x0000, 64> {
  using NodeType = Field<NodeInfo, 15, 0>;
  using NodeId = Field<NodeInfo, 31, 16>;
  using LogicalId = Field<NodeInfo, 47, 32>;
  // XPs on CMN-700: how many device ports the XP has (SCP-firmware cmn700.h
  // CMN700_MXP_NODE_INFO_NUM_DEVICE_PORT; cmn-tools n_device_ports()). The kernel does not use it.
  using XpDevicePorts = Field<NodeInfo, 51, 48>;
};

// por_*_child_info @ 0x80 (CMN_CHILD_INFO, CMN_CI_*): how many children, and where in the node's
// block their pointer array starts (0x100 on every part seen).
struct ChildInfo : Register<ChildInfo, 0x0080, 64> {
  using Count = Field<ChildInfo, 15, 0>;
  using PtrOffset = Field<ChildInfo, 31, 16>;
};

// One 64-bit entry of the child pointer array (CMN_CHILD_NODE_ADDR, CMN_CHILD_NODE_EXTERNAL).
// The offset field is [29:0] on CMN-650 and later, [27:0] on CMN-600 (older kernels masked
// [27:0] for every part; cmn-tools uses 28 bits for CMN-600 only) -- the width is part data.
// The pointers sit at ChildInfo::PtrOffset of the node's block, 8 bytes apart.
struct ChildPointer : Word<ChildPointer, 64> {
  using Offset30 = Field<ChildPointer, 29, 0>;
  // CMN S3 r2p0 and later flag isolated (powered-down) children here (cmn-tools
  // discover_children()); reserved on the parts pmukit walks, and a child with it set is skipped.
  using Isolated = Field<ChildPointer, 30, 30>;
  // A node outside the CMN power domain (RN-SAMs of CPUs, CXLAs): never read (arm_cmn_discover():
  // "Don't even try to touch anything external").
  using External = Field<ChildPointer, 31, 31>;
};

// ---- the configuration (root) node, type CFG ----------------------------------------------------

// por_cfgm_periph_id_0_periph_id_1 @ 0x8: part number [7:0] in the low word, [11:8] at [35:32]
// (CMN_CFGM_PERIPH_ID_01, CMN_CFGM_PID0_PART_0, CMN_CFGM_PID1_PART_1).
struct PeriphId01 : Register<PeriphId01, 0x0008, 64> {
  using PartLow = Field<PeriphId01, 7, 0>;
  using PartHigh = Field<PeriphId01, 35, 32>;
};
// por_cfgm_periph_id_2_periph_id_3 @ 0x10: revision [7:4] (CMN_CFGM_PERIPH_ID_23,
// CMN_CFGM_PID2_REVISION).
struct PeriphId23 : Register<PeriphId23, 0x0010, 64> {
  using Revision = Field<PeriphId23, 7, 4>;
};

// por_info_global @ 0x900 (CMN_CFGM_INFO_GLOBAL).
struct InfoGlobal : Register<InfoGlobal, 0x0900, 64> {
  using MultipleDtmEn = Field<InfoGlobal, 63, 63>;  // XPs with more than two ports have extra DTMs
  using RspVcNum = Field<InfoGlobal, 53, 52>;
  using DatVcNum = Field<InfoGlobal, 51, 50>;
  using ChiVersion = Field<InfoGlobal, 62, 60>;  // CMN-650 and later: the CHI issue, 1 = A (cmn-tools chi_version())
  // Device isolation: with it on, reading behind a port firmware left disabled can lock the machine
  // up, and Non-secure software cannot tell which ports those are; Linux refuses the whole CMN
  // (arm_cmn_discover(), CMN_INFO_DEVICE_ISO_ENABLE).
  using DeviceIsoEnable = Field<InfoGlobal, 44, 44>;
};
struct InfoGlobal1 : Register<InfoGlobal1, 0x0908, 64> {};  // CMN_CFGM_INFO_GLOBAL_1

// ---- crosspoints, type XP ----------------------------------------------------------------------

// por_mxp_device_port_connect_info_p<n> @ 0x8 + 8n (CMN_MXP__CONNECT_INFO(p)); CI-700 moves
// ports 2..5 up by 0x10 (CI700_CONNECT_INFO_P2_5_OFFSET). Zero means nothing is connected.
constexpr std::uint64_t connect_info(unsigned port) {
  return 0x0008 + 8ull * port;
}
struct ConnectInfo : Word<ConnectInfo, 32> {  // read as its low dword, as arm-cmn.c does
  // The connected device type (arm_cmn_device_type(): 0x1e is a CCG); 5 bits up to CMN-700, 6 on
  // CMN S3 (CMN__CONNECT_INFO_DEVICE_TYPE).
  using DeviceType = Field<ConnectInfo, 4, 0>;
  using DeviceType6 = Field<ConnectInfo, 5, 0>;
  // A CHI Aggregation Layer joins two devices to the port (SCP-firmware
  // CMN700_MXP_PORT_CONNECT_INFO_CAL_CONNECTED).
  using CalConnected = Field<ConnectInfo, 7, 7>;
};
constexpr unsigned kMaxPorts = 6;  // CMN_MAX_PORTS

// por_dtm_unit_info: the XP's DTC domain [1:0] (arm_cmn_dtc_domain(): @0x910 on CMN-650 and CI-700,
// @0x960 on CMN-700; CMN-600 has none, its XPs' domain cannot be read).
struct DtmUnitInfo : Word<DtmUnitInfo, 32> {  // read as its low dword
  using DtcDomain = Field<DtmUnitInfo, 1, 0>;
};

// ---- PMU registers: the third 4 KiB page of a node (CMN_PMU_OFFSET) -----------------------------

constexpr std::uint64_t kPmuPage = 0x2000;
// Every event source: por_*_pmu_event_sel at the PMU page; HN-P and CCLA-RNI nodes have a second
// one at +8 (CMN_HNP_PMU_EVENT_SEL), and a plain CCLA counts through that one (CMN_CCLA_PMU_EVENT_SEL).
constexpr std::uint64_t kPmuEventSel = 0x000;
constexpr std::uint64_t kPmuEventSelHigh = 0x008;
// Event slot n of a node's event select: byte n (CMN-700 XPs: 16 bits at 16n, the kernel's
// wide_sel). Slot n feeds the DTM counter of the same index (arm_cmn_event_add()).
constexpr unsigned kEventSlotBits = 8;
constexpr unsigned kWideEventSlotBits = 16;

// ---- event configuration words (perf_event_attr.config, arm-cmn.c CMN_CONFIG_*) ------------------
struct CmnConfig : Word<CmnConfig, 64> {
  using Type = Field<CmnConfig, 15, 0>;
  using EventId = Field<CmnConfig, 26, 16>;
  using OccupId = Field<CmnConfig, 30, 27>;
  using ByNodeId = Field<CmnConfig, 31, 31>;
  using NodeId = Field<CmnConfig, 47, 32>;
};
constexpr std::uint16_t kTypeWatchpoint = 0x7770;  // CMN_TYPE_WP: not a node type

// DTMs live in the XP's PMU page; with multiple DTMs enabled, DTM n is replicated at n * 0x200
// (CMN_DTM_OFFSET). DTM 1 serves ports 2-3, DTM 2 ports 4-5 (arm_cmn_init_dtcs(): port / 2).
constexpr std::uint64_t dtm_offset(unsigned n) {
  return 0x200ull * n;
}
constexpr std::uint64_t dtm_wp_config(unsigned n) {  // CMN_DTM_WPn_CONFIG; VAL +8, MASK +0x10
  return 0x1a0 + 0x18ull * n;
}
struct DtmPmuConfig : Register<DtmPmuConfig, 0x210, 64> {  // CMN_DTM_PMU_CONFIG
  using PmuEn = Field<DtmPmuConfig, 0, 0>;
  using InputSel0 = Field<DtmPmuConfig, 37, 32>;   // one byte per local counter from bit 32
  using GlobalNum0 = Field<DtmPmuConfig, 18, 16>;  // 4 bits apart per local counter
};
// Local counter n: its input select (byte n from bit 32), the DTC global counter it feeds
// (CMN__PMEVCNTn_GLOBAL_NUM_SHIFT: 4 bits apart from bit 16) and whether it is paired with one
// (CMN__PMEVCNT_PAIRED(n): bit 4 + n); a paired counter's carries count in the global counter.
constexpr unsigned dtm_input_sel_shift(unsigned n) {
  return 32 + 8 * n;
}
constexpr unsigned dtm_global_num_shift(unsigned n) {
  return 16 + 4 * n;
}
constexpr std::uint64_t dtm_paired(unsigned n) {
  return 1ull << (4 + n);
}
constexpr std::uint64_t kDtmInputSelMask = DtmPmuConfig::InputSel0::mask >> DtmPmuConfig::InputSel0::lo;
constexpr std::uint64_t kDtmGlobalNumMask = DtmPmuConfig::GlobalNum0::mask >> DtmPmuConfig::GlobalNum0::lo;
// Local counter n's fields of a PMU_CONFIG value (the field's place moves with n).
constexpr unsigned dtm_input_sel(RegValue<DtmPmuConfig> v, unsigned n) {
  return static_cast<unsigned>(v.raw >> dtm_input_sel_shift(n) & kDtmInputSelMask);
}
constexpr unsigned dtm_global_num(RegValue<DtmPmuConfig> v, unsigned n) {
  return static_cast<unsigned>(v.raw >> dtm_global_num_shift(n) & kDtmGlobalNumMask);
}
constexpr bool dtm_is_paired(RegValue<DtmPmuConfig> v, unsigned n) {
  return (v.raw & dtm_paired(n)) != 0;
}
// v with local counter n paired to DTC global counter `global`, counting input `input_sel`.
constexpr RegValue<DtmPmuConfig> dtm_pair(RegValue<DtmPmuConfig> v, unsigned n, unsigned input_sel, unsigned global) {
  return RegValue<DtmPmuConfig>{v.raw | std::uint64_t{input_sel} << dtm_input_sel_shift(n) |
                                std::uint64_t{global} << dtm_global_num_shift(n) | dtm_paired(n)};
}
// Input selects (CMN__PMEVCNT0_INPUT_SEL_*): watchpoint n, the XP's own event slot n, or event slot
// n of device `dev` on port `port` (port modulo 2 with multiple DTMs): 0x10 + n + port<<4 + dev<<2.
constexpr unsigned kInputSelWatchpoint = 0x00;
constexpr unsigned kInputSelXp = 0x04;
constexpr unsigned kInputSelDevice = 0x10;
constexpr std::uint64_t kDtmPmevcnt = 0x220;  // four 16-bit local counters
constexpr std::uint64_t kDtmPmevcntsr = 0x240;
constexpr unsigned kDtmCounters = 4;
constexpr unsigned kDtmCounterBits = 16;

// ---- DTC nodes, type DTC (relative to the node; the PMU registers sit in its PMU page) ----------

struct DtcCtl : Register<DtcCtl, 0x0a00, 32> {  // CMN_DT_DTC_CTL (32-bit access)
  using DtEn = Field<DtcCtl, 0, 0>;             // CMN_DT_DTC_CTL_DT_EN: debug and trace on
  // CMN_DT_DTC_CTL_CG_DISABLE: the DTC's clock is not gated while the domain idles, so its cycle
  // counter counts every cycle (arm-cmn.c sets it while a cycles event runs).
  using CgDisable = Field<DtcCtl, 10, 10>;
};
constexpr std::uint64_t dtc_pmevcnt(unsigned n) {  // CMN_DT_PMEVCNT: 32-bit counters paired on 16 bytes
  return kPmuPage + ((n / 2) * 4 + n % 2) * 4ull;
}
constexpr std::uint64_t kDtcPmccntr = kPmuPage + 0x40;      // 40-bit cycle counter (CMN_DT_PMCCNTR)
struct DtcPmcr : Register<DtcPmcr, kPmuPage + 0x100, 32> {  // CMN_DT_PMCR (32-bit access)
  using PmuEn = Field<DtcPmcr, 0, 0>;                       // CMN_DT_PMCR_PMU_EN: the domain counts
  using CntrRst = Field<DtcPmcr, 5, 5>;                     // CMN_DT_PMCR_CNTR_RST
  using OvflIntrEn = Field<DtcPmcr, 6, 6>;                  // CMN_DT_PMCR_OVFL_INTR_EN
};
// The values arm-cmn.c starts counters from (CMN_COUNTER_INIT, CMN_CC_INIT): half way, so an
// overflow is seen long before a count is lost.
constexpr std::uint64_t kCounterInit = 0x80000000ull;
constexpr std::uint64_t kCycleInit = 0x8000000000ull;
constexpr unsigned kDtcCounterBits = 32;
constexpr unsigned kCycleCounterBits = 40;
constexpr std::uint64_t kDtcPmovsr = kPmuPage + 0x118;
constexpr std::uint64_t kDtcPmovsrClr = kPmuPage + 0x120;
constexpr std::uint64_t kDtcPmssr = kPmuPage + 0x128;
constexpr std::uint64_t kDtcPmsrr = kPmuPage + 0x130;
constexpr unsigned kDtcCounters = 8;  // CMN_DT_NUM_COUNTERS
constexpr unsigned kMaxDtcs = 4;      // CMN_MAX_DTCS

// ---- mesh limits ---------------------------------------------------------------------------------

constexpr unsigned kMaxDimension = 12;                       // CMN_MAX_DIMENSION
constexpr unsigned kMaxXps = kMaxDimension * kMaxDimension;  // CMN_MAX_XPS
// Logical ids count from 0 per node type; one above this is a broken tree (arm_cmn_discover():
// CMN_MAX_NODES_PER_EVENT).
constexpr unsigned kMaxLogicalId = kMaxXps;
// An XP's child pointer array holds 32 entries (SCP-firmware struct cmn700_mxp_reg CHILD_POINTER[32];
// cmn-tools warns above 32 children of an XP).
constexpr unsigned kMaxXpChildren = 32;

// Node types (arm-cmn.c enum cmn_node_type). Names and everything else per type are data.
constexpr std::uint16_t kTypeDvm = 0x1;
constexpr std::uint16_t kTypeCfg = 0x2;
constexpr std::uint16_t kTypeDtc = 0x3;
constexpr std::uint16_t kTypeHni = 0x4;
constexpr std::uint16_t kTypeXp = 0x6;
constexpr std::uint16_t kTypeRni = 0xa;
constexpr std::uint16_t kTypeRnd = 0xd;
constexpr std::uint16_t kTypeHnp = 0x11;
constexpr std::uint16_t kTypeCcla = 0x105;
constexpr std::uint16_t kTypeCclaRni = 0x106;

// Combined nodes have two event selects, one per part (arm_cmn_discover() splits them): HN-P is an
// HN-P at +8 and an HN-I at +0; CCLA-RNI a CCLA at +8 and an RN-I at +0. A plain CCLA counts through
// +8 too (CMN_CCLA_PMU_EVENT_SEL, Linux 6.7 and later).
constexpr bool has_second_part(std::uint16_t node_type) {
  return node_type == kTypeHnp || node_type == kTypeCclaRni;
}
constexpr std::uint64_t event_sel_offset(std::uint16_t node_type, unsigned part) {
  const bool high = node_type == kTypeHnp || node_type == kTypeCcla || node_type == kTypeCclaRni;
  return kPmuPage + (part == 0 && high ? kPmuEventSelHigh : kPmuEventSel);
}
// The event type a node's part answers to (arm_cmn_subtype(); arm_cmn_init_dtcs() counts RN-Ds as
// RN-Is and the CCLA part of a CCLA-RNI as a CCLA).
constexpr std::uint16_t event_type(std::uint16_t node_type, unsigned part) {
  if (part == 1) return node_type == kTypeHnp ? kTypeHni : kTypeRni;
  if (node_type == kTypeRnd) return kTypeRni;
  if (node_type == kTypeCclaRni) return kTypeCcla;
  return node_type;
}

}  // namespace pmukit::regs::cmn
