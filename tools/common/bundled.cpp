// pmukit tools -- the bundled synthetic machines.
#include "common/bundled.h"

#include <fmt/format.h>

#include "pmukit/snapshot/machine_spec.h"

namespace pmukit::tools {

void print_bundled_machines() {
  for (const auto& m : snapshot::bundled_machines()) fmt::print("{:<10} {}\n", m.name, m.label);
}

}  // namespace pmukit::tools
