// pmu-discover -- the PCI view (--pci): lspci -vvv-like text (the JSON is pci/device_json.h).
#pragma once

#include <cstdio>
#include <vector>

#include "pmukit/pci/device.h"

namespace pmukit::tools {

void print_pci_text(Machine& machine, const std::vector<pci::Device>& devices, bool verbose);

}  // namespace pmukit::tools
