// pmukit -- an Arm CMN mesh's counting registers: per DTC domain DTC_CTL, PMCR, the eight global
// counters and the cycle counter; per DTM its PMU_CONFIG and local counters; per node with events
// its event select(s) (Linux arm-cmn.c).
#pragma once

#include "pmukit/pmu/unit_layout.h"

namespace pmukit::platform {
class Database;
}

namespace pmukit::pmu {

enum class CmnRole : RoleId {
  DtcControl,    // DTC_CTL of DTC domain `index`
  PmuControl,    // PMCR of DTC domain `index`
  CycleCounter,  // PMCCNTR of DTC domain `index`
  Counter,       // global counter `index` of the DTC of domain `instance`
  DtmConfig,     // por_dtm_pmu_config of DTM `index` (CmnUnit::dtms)
  DtmCounter,    // por_dtm_pmevcnt: the DTM's four 16-bit local counters
  EventSelect,   // pmu_event_sel of node `index` (CmnUnit::nodes); instance 1: its second part
};

UnitLayout cmn_layout(const discovery::PmuUnit& unit, const platform::Database& db);

}  // namespace pmukit::pmu
