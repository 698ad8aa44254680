// pmukit -- the Intel uncore family: PMON boxes found through the discovery tables (Sapphire Rapids
// and later; Linux uncore_discovery.c) and the IIO stacks' root buses, their layout, driver,
// simulator model and the machine spec's "intel_tables" and "intel_iio" sections.
#pragma once

#include "pmukit/discovery/family.h"

namespace pmukit::families {

const discovery::Family& intel_family();

}  // namespace pmukit::families
