// pmukit -- internal: the machine spec's "apmt" section (coresight_spec.cpp).
#pragma once

#include "pmukit/snapshot/spec_context.h"

namespace pmukit::snapshot::spec {

void write_apmt(const json& section, Context& ctx);

}  // namespace pmukit::snapshot::spec
