// pmukit -- internal: how events are placed on an Arm CMN mesh's counters, as Linux arm-cmn.c
// places them (arm_cmn_event_init() picks the nodes, arm_cmn_event_add() the counters), without
// any I/O: the driver's fit() and place() share it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/pmu/verdict.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit::pmu {

// One node an event counts on, and the DTM local counter that counts it.
struct CmnLocal {
  unsigned node = 0;           // into CmnUnit::nodes
  unsigned part = 0;           // which of the node's event selects (regs::cmn::has_second_part)
  unsigned dtm = 0;            // into CmnUnit::dtms
  unsigned index = 0;          // local counter 0..3, also the node's event select slot
  std::uint8_t input_sel = 0;  // PMU_CONFIG input select of that counter
  // The values configure() writes when it pairs this counter, events and nodes taken in order:
  // the DTM's PMU_CONFIG with every counter paired so far, and the node's event select with
  // every slot filled so far (from 0).
  RegValue<regs::cmn::DtmPmuConfig> dtm_config;
  std::uint64_t event_select = 0;
};

struct CmnEventPlan {
  bool cycles = false;  // the DTC cycle counter of `domain`
  unsigned domain = 0;
  unsigned global = 0;  // the DTC global counter the local counters feed (in every domain)
  std::uint16_t eventid = 0;
  bool wide = false;  // 16-bit event select slots (CMN-700 XPs)
  std::vector<CmnLocal> locals;
};

struct CmnPlan {
  std::vector<CmnEventPlan> events;  // in event order
  struct Select {
    unsigned node = 0, part = 0;
    std::uint64_t value = 0;  // with every event placed so far in its slot
  };
  std::vector<Select> selects;                                       // event selects written, once each
  std::map<unsigned, RegValue<regs::cmn::DtmPmuConfig>> dtm_config;  // DTMs used -> their final PMU_CONFIG
};

// Places `events` on `mesh` (the unit named `unit`), filling `plan`; the refusal when they do not
// fit, naming the rule (kernel_rule: arm-cmn.c refuses the event as well; counters_short: only the
// number of counters is short, so they fit in turn).
std::optional<DoesNotFit> plan_cmn_events(const discovery::CmnUnit& mesh, const std::string& unit,
                                          const std::vector<syntax::EncodedEvent>& events, CmnPlan& plan);

// The value of a node's event select with `slot` holding `eventid` over `previous`.
std::uint64_t with_event_slot(std::uint64_t previous, unsigned slot, std::uint16_t eventid, bool wide);

}  // namespace pmukit::pmu
