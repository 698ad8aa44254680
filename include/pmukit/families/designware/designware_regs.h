// pmukit -- the DesignWare PCIe RAS DES counter register map (Linux dwc_pcie_pmu.c,
// include/linux/pcie-dwc.h): byte offsets from the RAS DES VSEC in a root port's configuration
// space, and the bit fields of the two control registers.
#pragma once

#include <cstdint>
#include <string_view>

#include "pmukit/util/bits.h"

namespace pmukit::regs::dwc {

// Event counter control: selects one lane event (and lane), and turns it on, off or clears it.
struct EventCntCtl : Register<EventCntCtl, 0x08, 32> {
  using Clear = Field<EventCntCtl, 1, 0>;   // 0x1: per-event clear
  using Enable = Field<EventCntCtl, 4, 2>;  // 0x1: per-event off, 0x3: per-event on
  using Status = Field<EventCntCtl, 7, 7>;
  using Lane = Field<EventCntCtl, 11, 8>;
  using Select = Field<EventCntCtl, 27, 16>;  // group [27:24] + event [23:16]: a LaneEventId
};
constexpr std::uint64_t kPerEventClear = 0x1;
constexpr std::uint64_t kPerEventOff = 0x1;
constexpr std::uint64_t kPerEventOn = 0x3;
// The counter of the event and lane EVENT_CNT_CTL selects (32 bits, or narrower: lane_counter_width): Linux writes the
// select before every read (dwc_pcie_pmu_read_lane_event_counter), since each group 6/7 event counts on its own.
struct EventCntData : Register<EventCntData, 0x0c, 32> {};

// A lane event id (EventCntCtl::Select, the perf eventid of a lane event) is a group and an event
// number within it (Linux DWC_PCIE_CNT_EVENT_SEL_GROUP, DWC_PCIE_CNT_EVENT_SEL_EVID). Groups 6 and
// 7 (the 32-bit layer-2 and layer-3 non-error counters) have a counter per event, so several count
// at once; Linux exposes only those (dwc_pcie_pmu_validate_add_lane_event).
struct LaneEventId : Word<LaneEventId, 16> {
  using Group = Field<LaneEventId, 11, 8>;
  using Number = Field<LaneEventId, 7, 0>;
};
constexpr unsigned kParallelGroupFirst = 6, kParallelGroupLast = 7;
// The width of a lane event's counter, by group (the DesignWare RAS DES event counter groups as
// the Alibaba Yitian 710 PCIe PMU guide lists them: #0 and #4 4-bit per-lane layer-1 counters, #1-#3
// 8-bit error counters, #5-#7 32-bit): EVENT_CNT_DATA shows the low bits, and the counter wraps there.
constexpr unsigned lane_counter_width(RegValue<LaneEventId> id) {
  switch (LaneEventId::Group::get(id)) {
  case 0:
  case 4:
    return 4;
  case 1:
  case 2:
  case 3:
    return 8;
  default:
    return 32;
  }
}

// Time-based analysis control: what the timer reports, for how long, and its start.
struct TimeCtl : Register<TimeCtl, 0x10, 32> {
  using Enable = Field<TimeCtl, 0, 0>;     // timer start
  using Duration = Field<TimeCtl, 15, 8>;  // 0: manual control
  using ReportSelect = Field<TimeCtl, 31, 24>;
};
struct TimeDataLow : Register<TimeDataLow, 0x14, 32> {};    // 64-bit counter, read hi-lo-hi
struct TimeDataHigh : Register<TimeDataHigh, 0x18, 32> {};  // its high dword
constexpr std::uint32_t kSpan = TimeDataHigh::offset + 4;   // bytes the VSEC must cover
static_assert(disjoint<EventCntCtl::Clear, EventCntCtl::Enable>() &&
              disjoint<EventCntCtl::Lane, EventCntCtl::Select>());
static_assert(disjoint<TimeCtl::Enable, TimeCtl::Duration>() && disjoint<TimeCtl::Duration, TimeCtl::ReportSelect>());

// The registers by name, in offset order: what pmu-discover and the inventory JSON show.
struct NamedRegister {
  std::string_view name;
  std::uint32_t offset;
};
constexpr NamedRegister kRegisters[] = {{"EVENT_CNT_CTL", EventCntCtl::offset},
                                        {"EVENT_CNT_DATA", EventCntData::offset},
                                        {"TIME_BASED_ANAL_CTL", TimeCtl::offset},
                                        {"TIME_BASED_ANAL_DATA_LOW", TimeDataLow::offset},
                                        {"TIME_BASED_ANAL_DATA_HIGH", TimeDataHigh::offset}};

// perf config of dwc_rootport PMUs: eventid config:0-15, type config:16-19, lane config:20-27.
struct PerfConfig : Word<PerfConfig, 64> {
  using EventId = Field<PerfConfig, 15, 0>;
  using Type = Field<PerfConfig, 19, 16>;
  using Lane = Field<PerfConfig, 27, 20>;
};
constexpr unsigned kTypeTimeBased = 0;
constexpr unsigned kTypeLane = 1;
// Time-based data events count 16-byte units; the kernel reports bytes (x16) for ids 0x20-0x23.
constexpr std::uint64_t kPayloadFirst = 0x20, kPayloadLast = 0x23, kPayloadUnit = 16;

}  // namespace pmukit::regs::dwc
