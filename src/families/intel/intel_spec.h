// pmukit -- internal: the machine spec's "intel_tables" section (intel_spec.cpp).
#pragma once

#include "pmukit/snapshot/spec_context.h"

namespace pmukit::snapshot::spec {

// Intel PMON discovery tables in a device's BAR or behind an MSR, and the boxes' registers.
void write_intel_tables(const json& section, Context& ctx);

}  // namespace pmukit::snapshot::spec
