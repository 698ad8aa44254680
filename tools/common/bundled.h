// pmukit tools -- a bundled synthetic machine, built into a temporary directory for one run
// (families::BundledMachine), and the list of them.
#pragma once

#include "pmukit/families/bundled_machine.h"

namespace pmukit::tools {

using BundledSnapshot = families::BundledMachine;

// Prints the bundled machines, one per line: name and label.
void print_bundled_machines();

}  // namespace pmukit::tools
