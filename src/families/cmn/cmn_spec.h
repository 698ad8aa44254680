// pmukit -- internal: the machine spec's "cmn" section (cmn_spec.cpp).
#pragma once

#include "pmukit/snapshot/spec_context.h"

namespace pmukit::snapshot::spec {

// Arm CMN meshes, their ACPI or devicetree description and the configuration region.
void write_cmn(const json& section, Context& ctx);

}  // namespace pmukit::snapshot::spec
