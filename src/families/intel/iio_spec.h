// pmukit -- internal: the machine spec's "intel_iio" section (iio_spec.cpp).
#pragma once

#include "pmukit/snapshot/spec_context.h"

namespace pmukit::snapshot::spec {

// Intel IIO stacks: mapping registers, root ports, endpoints, accelerators.
void write_intel_iio(const json& section, Context& ctx);

}  // namespace pmukit::snapshot::spec
