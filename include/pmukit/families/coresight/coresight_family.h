// pmukit -- the Arm CoreSight PMU family: blocks the ACPI APMT lists (Linux arm_cspmu and its
// NVIDIA and Ampere backends), NVIDIA's PCIe root-port mapping, their layout, driver, simulator
// model and the machine spec's "apmt" section.
#pragma once

#include "pmukit/discovery/family.h"

namespace pmukit::families {

const discovery::Family& coresight_family();

}  // namespace pmukit::families
