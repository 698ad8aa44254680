// pmukit -- the Tegra410 family: the PMU blocks outside CoreSight (ACPI NVDA2020..2023: NVLink-C2C,
// NV-CLink, NV-DLink, CMEM latency), their layout, driver and simulator model.
#pragma once

#include "pmukit/discovery/family.h"

namespace pmukit::families {

const discovery::Family& tegra410_family();

}  // namespace pmukit::families
