// pmukit -- internal: the machine spec's "amd_iommus" section (amd_iommu_spec.cpp).
#pragma once

#include "pmukit/snapshot/spec_context.h"

namespace pmukit::snapshot::spec {

// AMD IOMMUs: each PCI function with its IOMMU capability, its MMIO region's /proc/iomem claim
// and the registers discovery and the counters read.
void write_amd_iommus(const json& section, Context& ctx);

}  // namespace pmukit::snapshot::spec
