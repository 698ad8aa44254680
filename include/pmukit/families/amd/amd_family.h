// pmukit -- the AMD family: the L3, Data Fabric and UMC counters of EPYC (Zen 2 to Zen 5), reached
// through MSRs, with their discovery, layout, driver, simulator model and machine-spec section.
#pragma once

#include "pmukit/discovery/family.h"

namespace pmukit::families {

const discovery::Family& amd_family();

}  // namespace pmukit::families
