// Typed registers (util/bits.h): a register's offset, width and fields are one declaration, a
// field decodes only a value of its own register, and the offsets are the specifications' own.
#include <gtest/gtest.h>

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "pmukit/families/cmn/cmn_regs.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/designware/designware_regs.h"
#include "pmukit/families/intel/iio_regs.h"
#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/families/tegra410/tegra410_regs.h"
#include "pmukit/util/bits.h"

using namespace pmukit;

namespace {

namespace cs = regs::coresight;
namespace dwc = regs::dwc;
namespace intel = regs::intel;
namespace cmn = regs::cmn;
namespace t410 = regs::t410;

// Whether field F decodes a value of type V, can replace itself in one, and whether two values
// can be put together.
template <class F, class V>
concept Decodes = requires(V v) {
  F::get(v);
};
template <class F, class V>
concept Updates = requires(V v) {
  F::set(v, 1);
};
template <class A, class B>
concept Combines = requires(A a, B b) {
  a | b;
};

// ---- a field takes only a value of its own register ----
static_assert(Decodes<cs::Pmcfgr::Size, RegValue<cs::Pmcfgr>>);
static_assert(!Decodes<cs::Pmcfgr::Size, RegValue<cs::Pmcr>>, "PMCFGR.SIZE must not decode a PMCR value");
static_assert(!Decodes<cs::Pmcfgr::Size, std::uint64_t>, "no field decodes a bare integer");
static_assert(!Decodes<cs::Pmcfgr::Size, std::uint32_t>);
static_assert(!Decodes<cs::Pmcfgr::Size, int>);
static_assert(Decodes<cs::Pmcr::E, RegValue<cs::Pmcr>> && !Decodes<cs::Pmcr::E, RegValue<cs::Pmcfgr>>);
static_assert(!Decodes<cs::Pmiidr::Product, RegValue<cs::Pmcfgr>> && !Decodes<cs::Pmiidr::Product, std::uint64_t>);
static_assert(!Decodes<dwc::EventCntCtl::Select, RegValue<dwc::TimeCtl>>);
static_assert(!Decodes<dwc::LaneEventId::Group, RegValue<dwc::EventCntCtl>>);
static_assert(!Decodes<dwc::PerfConfig::Lane, std::uint64_t>);
static_assert(!Decodes<intel::UnitTable1::CtlOffset, RegValue<intel::GlobalTable1>>);
static_assert(!Decodes<intel::BoxCtl::Freeze, RegValue<intel::CtrCtl>>);
static_assert(!Decodes<cmn::NodeInfo::NodeType, RegValue<cmn::ChildInfo>>);
static_assert(!Decodes<cmn::DtcPmcr::PmuEn, RegValue<cmn::DtcCtl>> && !Decodes<cmn::DtcPmcr::PmuEn, std::uint64_t>);
static_assert(!Decodes<regs::intel_iio::SadControlCfg::Socket, RegValue<regs::intel_iio::Capid4>>);
// ... and replaces itself only in one.
static_assert(Updates<cs::Pmcr::E, RegValue<cs::Pmcr>>);
static_assert(!Updates<cs::Pmcr::E, RegValue<cs::Pmcfgr>> && !Updates<cs::Pmcr::E, std::uint64_t>);
// Values of one register combine; of two registers, or with a bare integer, they do not.
static_assert(Combines<RegValue<cs::Pmcr>, RegValue<cs::Pmcr>>);
static_assert(!Combines<RegValue<cs::Pmcr>, RegValue<cs::Pmcfgr>>);
static_assert(!Combines<RegValue<cs::Pmcr>, std::uint64_t> && !Combines<std::uint64_t, RegValue<cs::Pmcr>>);
// A bare integer becomes a value only explicitly, naming the register; values never convert.
static_assert(!std::is_convertible_v<std::uint64_t, RegValue<cs::Pmcr>>);
static_assert(std::is_constructible_v<RegValue<cs::Pmcr>, std::uint64_t>);
static_assert(!std::is_convertible_v<RegValue<cs::Pmcfgr>, RegValue<cs::Pmcr>>);
static_assert(!std::is_constructible_v<RegValue<cs::Pmcr>, RegValue<cs::Pmcfgr>>);
static_assert(!std::is_convertible_v<RegValue<cs::Pmcr>, std::uint64_t>);
// put builds a value of the field's register.
static_assert(std::same_as<decltype(cs::Pmcr::E::put(1)), RegValue<cs::Pmcr>>);
static_assert(std::same_as<decltype(intel::BoxCtl::Freeze::put(1)), RegValue<intel::BoxCtl>>);

// ---- offsets and widths are the specifications' ----
// ARM IHI 0091 (CoreSight PMU architecture) / Linux arm_cspmu.h: PMCFGR 0xE00, PMCR 0xE04,
// PMIIDR 0xE08, PMPIDR4 0xFD0, PMPIDR0..3 0xFE0..0xFEC, all 32-bit.
static_assert(cs::Pmcfgr::offset == 0xe00 && cs::Pmcr::offset == 0xe04 && cs::Pmiidr::offset == 0xe08);
static_assert(cs::Pmpidr4::offset == 0xfd0 && cs::Pmpidr0::offset == 0xfe0 && cs::Pmpidr1::offset == 0xfe4);
static_assert(cs::Pmpidr2::offset == 0xfe8 && cs::Pmpidr3::offset == 0xfec);
static_assert(cs::Pmcfgr::width == 32 && cs::Pmcr::width == 32 && cs::Pmiidr::width == 32);
// Linux dwc_pcie_pmu.c: DWC_PCIE_EVENT_CNT_CTL 0x8, DWC_PCIE_EVENT_CNT_DATA 0xC,
// DWC_PCIE_TIME_BASED_ANAL_CTL 0x10, DWC_PCIE_TIME_BASED_ANAL_DATA_REG_LOW 0x14, _HIGH 0x18.
static_assert(dwc::EventCntCtl::offset == 0x08 && dwc::EventCntData::offset == 0x0c);
static_assert(dwc::TimeCtl::offset == 0x10 && dwc::TimeDataLow::offset == 0x14 && dwc::TimeDataHigh::offset == 0x18);
static_assert(dwc::kSpan == 0x1c);
// Linux uncore_discovery.h: a record is three qwords, table1 / ctl / table3.
static_assert(intel::GlobalTable1::offset == 0 && intel::GlobalCtl::offset == 8 && intel::GlobalTable3::offset == 16);
static_assert(intel::UnitTable1::offset == 0 && intel::UnitBoxCtl::offset == 8 && intel::UnitTable3::offset == 16);
// Linux arm-cmn.c: CMN_NODE_INFO 0x0, CMN_CFGM_PERIPH_ID_01 0x8, _23 0x10, CMN_CHILD_INFO 0x80,
// CMN_CFGM_INFO_GLOBAL 0x900, CMN_DTM_PMU_CONFIG 0x210, CMN_DT_DTC_CTL 0xa00, CMN_DT_PMCR
// CMN_PMU_OFFSET (0x2000) + 0x100.
static_assert(cmn::NodeInfo::offset == 0x0 && cmn::PeriphId01::offset == 0x8 && cmn::PeriphId23::offset == 0x10);
static_assert(cmn::ChildInfo::offset == 0x80 && cmn::InfoGlobal::offset == 0x900 && cmn::InfoGlobal1::offset == 0x908);
static_assert(cmn::DtmPmuConfig::offset == 0x210 && cmn::DtcCtl::offset == 0xa00 && cmn::DtcPmcr::offset == 0x2100);
static_assert(cmn::DtcCtl::width == 32 && cmn::DtcPmcr::width == 32 && cmn::NodeInfo::width == 64);
// Linux nvidia_t410_c2c_pmu.c (C2C_CTRL 0x864) and nvidia_t410_cmem_latency_pmu.c
// (CMEM_LAT_CG_CTRL 0x800, CMEM_LAT_CTRL 0x808, CMEM_LAT_CYCLE_CNTR 0x818).
static_assert(t410::C2cCtrl::offset == 0x864 && t410::CmemCgCtrl::offset == 0x800);
static_assert(t410::CmemCtrl::offset == 0x808 && t410::CmemCycleCntr::offset == 0x818);

// ---- fields sit where the specifications put them ----
static_assert(cs::Pmcfgr::N::mask == 0xff && cs::Pmcfgr::Size::mask == 0x3f00 && cs::Pmcfgr::Cc::mask == 0x4000);
static_assert(cs::Pmcr::E::mask == 0x1 && cs::Pmcr::P::mask == 0x2 && cs::Pmcr::C::mask == 0x4);
static_assert(cs::Pmiidr::Implementer::mask == 0xfff && cs::Pmiidr::Product::mask == 0xfff00000);
static_assert(dwc::EventCntCtl::Select::mask == 0x0fff0000 && dwc::EventCntCtl::Enable::mask == 0x1c);

TEST(TypedRegister, FieldsDecodeTheValueTheyWereReadFrom) {
  // A Grace SCF PMCFGR (arm_cspmu: 8 counters of 64 bits and a cycle counter).
  const RegValue<cs::Pmcfgr> pmcfgr{0x00007f07};
  EXPECT_EQ(cs::Pmcfgr::N::get(pmcfgr), 7u);
  EXPECT_EQ(cs::Pmcfgr::Size::get(pmcfgr), 63u);
  EXPECT_EQ(cs::Pmcfgr::Cc::get(pmcfgr), 1u);
  const RegValue<cs::Pmiidr> pmiidr{0x2cf0036b};  // NVIDIA (JEP106 0x36b), product 0x2cf
  EXPECT_EQ(cs::Pmiidr::Implementer::get(pmiidr), 0x36bu);
  EXPECT_EQ(cs::Pmiidr::Product::get(pmiidr), 0x2cfu);
}

TEST(TypedRegister, PutAndSetRoundTripEveryFieldAndKeepTheOthers) {
  using Ctl = dwc::EventCntCtl;
  const auto v = Ctl::Select::put(0x70c) | Ctl::Lane::put(3) | Ctl::Enable::put(dwc::kPerEventOn);
  EXPECT_EQ(v.raw, 0x070c030cu);
  EXPECT_EQ(Ctl::Select::get(v), 0x70cu);
  EXPECT_EQ(Ctl::Lane::get(v), 3u);
  EXPECT_EQ(Ctl::Enable::get(v), dwc::kPerEventOn);
  EXPECT_EQ(Ctl::Clear::get(v), 0u);
  const auto off = Ctl::Enable::set(v, dwc::kPerEventOff);
  EXPECT_EQ(Ctl::Enable::get(off), dwc::kPerEventOff);
  EXPECT_EQ(Ctl::Select::get(off), 0x70cu);
  EXPECT_EQ(Ctl::Lane::get(off), 3u);
  EXPECT_EQ(Ctl::Enable::clear(v).raw, 0x070c0300u);
  // A value wider than its field is cut to the field, never spilling into the next.
  EXPECT_EQ(Ctl::Lane::put(0x1f).raw, 0xf00u);
  for (std::uint64_t x : {0ull, 1ull, 0x2aull, 0x3full, 0x40ull, ~0ull}) {
    EXPECT_EQ(cs::Pmcfgr::Size::get(cs::Pmcfgr::Size::put(x)), x & 0x3f);
    EXPECT_EQ(intel::UnitTable1::AccessType::get(intel::UnitTable1::AccessType::put(x)), x & 3);
    EXPECT_EQ(cmn::NodeInfo::LogicalId::get(cmn::NodeInfo::LogicalId::put(x)), x & 0xffff);
  }
  // The CoreSight driver's start: PMCR with P and C cleared and E set, X (bit 4) kept.
  const RegValue<cs::Pmcr> original{0x16};
  EXPECT_EQ((cs::Pmcr::C::clear(cs::Pmcr::P::clear(original)) | cs::Pmcr::E::put(1)).raw, 0x11u);
}

TEST(TypedRegister, RecordWordsAreTheQwordsTheirOffsetsName) {
  const std::uint64_t record[3] = {0x4000000000120304ull, 0xc8aa2000ull, 0x00050002ull};
  const auto t1 = intel::record_word<intel::UnitTable1>(record);
  EXPECT_EQ(intel::UnitTable1::NumRegs::get(t1), 4u);
  EXPECT_EQ(intel::UnitTable1::CtlOffset::get(t1), 3u);
  EXPECT_EQ(intel::UnitTable1::BitWidth::get(t1), 0x12u);
  EXPECT_EQ(intel::UnitTable1::AccessType::get(t1), 1u);  // MMIO
  EXPECT_EQ(intel::record_word<intel::UnitBoxCtl>(record).raw, 0xc8aa2000u);
  const auto t3 = intel::record_word<intel::UnitTable3>(record);
  EXPECT_EQ(intel::UnitTable3::BoxType::get(t3), 2u);
  EXPECT_EQ(intel::UnitTable3::BoxId::get(t3), 5u);
}

TEST(TypedRegister, CmnDtmConfigPairsEachLocalCounterInItsOwnFields) {
  auto cfg = cmn::DtmPmuConfig::PmuEn::put(1);
  cfg = cmn::dtm_pair(cfg, 0, 0x04, 2);
  cfg = cmn::dtm_pair(cfg, 3, 0x15, 7);
  EXPECT_EQ(cmn::DtmPmuConfig::PmuEn::get(cfg), 1u);
  EXPECT_EQ(cmn::DtmPmuConfig::InputSel0::get(cfg), 0x04u);
  EXPECT_EQ(cmn::DtmPmuConfig::GlobalNum0::get(cfg), 2u);
  EXPECT_EQ(cmn::dtm_input_sel(cfg, 3), 0x15u);
  EXPECT_EQ(cmn::dtm_global_num(cfg, 3), 7u);
  EXPECT_TRUE(cmn::dtm_is_paired(cfg, 0) && cmn::dtm_is_paired(cfg, 3));
  EXPECT_FALSE(cmn::dtm_is_paired(cfg, 1) || cmn::dtm_is_paired(cfg, 2));
}

}  // namespace
