// pmukit -- internal: the machine spec's "amd_uncore" section (amd_spec.cpp).
#pragma once

#include "pmukit/snapshot/spec_context.h"

namespace pmukit::snapshot::spec {

// The L3 each CPU shares (cache/index3), each CPU's CPUID answers (/dev/cpu/N/cpuid), the L3, DF and
// UMC counter MSRs of the CPUs that reach them, and optionally the kernel's amd_* perf PMUs.
void write_amd_uncore(const json& section, Context& ctx);

}  // namespace pmukit::snapshot::spec
