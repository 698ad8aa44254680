// pmukit -- DesignWare PCIe RAS DES counter registers (Linux dwc_pcie_pmu.c, pcie-dwc.h), as byte
// offsets from the RAS DES VSEC (ID 2, rev 4) in the root port's configuration space.
#pragma once

#include <cstdint>

#include "pmukit/util/bits.h"

namespace pmukit::pmu::dwc {

constexpr unsigned EVENT_CNT_CTL = 0x08;
struct EventCntCtl;
using EventCntClear = Field<EventCntCtl, 1, 0>;   // 0x1: per-event clear
using EventCntEnable = Field<EventCntCtl, 4, 2>;  // 0x1: per-event off, 0x3: per-event on
using EventCntStatus = Field<EventCntCtl, 7, 7>;
using EventCntLane = Field<EventCntCtl, 11, 8>;
using EventCntSelect = Field<EventCntCtl, 27, 16>;  // group [27:24] + event [23:16]
constexpr std::uint64_t kPerEventClear = 0x1;
constexpr std::uint64_t kPerEventOff = 0x1;
constexpr std::uint64_t kPerEventOn = 0x3;
constexpr unsigned EVENT_CNT_DATA = 0x0c;  // 32-bit lane event counter

constexpr unsigned TIME_BASED_ANAL_CTL = 0x10;
struct TimeCtl;
using TimeCtlEnable = Field<TimeCtl, 0, 0>;     // timer start
using TimeCtlDuration = Field<TimeCtl, 15, 8>;  // 0: manual control
using TimeCtlReportSelect = Field<TimeCtl, 31, 24>;
constexpr unsigned TIME_BASED_ANAL_DATA_LOW = 0x14;  // 64-bit with HIGH at 0x18, read hi-lo-hi

// perf config of dwc_rootport PMUs: eventid config:0-15, type config:16-19, lane config:20-27.
constexpr unsigned kTypeTimeBased = 0;
constexpr unsigned kTypeLane = 1;
// Time-based data events count 16-byte units; the kernel reports bytes (x16) for ids 0x20-0x23.
constexpr std::uint64_t kPayloadFirst = 0x20, kPayloadLast = 0x23, kPayloadUnit = 16;

}  // namespace pmukit::pmu::dwc
