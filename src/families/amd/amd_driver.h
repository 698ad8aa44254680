// pmukit -- the AMD uncore counter driver (L3, Data Fabric, UMC over MSRs).
#pragma once

#include <memory>

#include "pmukit/pmu/driver.h"

namespace pmukit::pmu {

std::unique_ptr<UnitDriver> make_amd_driver(const UnitLayout& layout);

// The control word the kernel keeps for an event (hwc->config, without the enable bit): the
// kind's raw event mask, and on L3 the thread, slice and core selection it adds when the user
// gives none (amd_uncore_llc_event_init / l3_thread_slice_mask).
std::uint64_t amd_control_word(const discovery::PmuUnit& unit, std::uint64_t config);
// The control's enable bit: ARCH_PERFMON_EVENTSEL_ENABLE (22), or AMD64_PERFMON_V2_ENABLE_UMC (31).
std::uint64_t amd_enable_bit(const discovery::PmuUnit& unit);

}  // namespace pmukit::pmu
