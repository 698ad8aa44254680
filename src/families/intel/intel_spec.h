// pmukit -- internal: the machine spec's "intel_tables" and "intel_mmio" sections (intel_spec.cpp).
#pragma once

#include "pmukit/snapshot/spec_context.h"

namespace pmukit::snapshot::spec {

// Intel PMON discovery tables in a device's BAR or behind an MSR, and the boxes' registers.
void write_intel_tables(const json& section, Context& ctx);

// Physical ranges that hold MMIO boxes of the kernel's fixed tables (Ice Lake-SP's IMC channels,
// found through a memory controller's config space, not a table): [{"base", "size"}], zero-filled so
// that the snapshot's memory answers there.
void write_intel_mmio(const json& section, Context& ctx);

}  // namespace pmukit::snapshot::spec
