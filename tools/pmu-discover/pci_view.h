// pmu-discover -- the PCI view (--pci): lspci -vvv-like text (the JSON is pci/device_json.h).
#pragma once

#include <cstdio>
#include <vector>

#include "pmukit/pci/device.h"

namespace pmukit::tools {

void print_pci_text(Machine& machine, const std::vector<pci::Device>& devices, bool verbose);
// One capability as lspci -vvv names it: "[100 v1] DVSEC Vendor=8086 ID=0001 Rev=1 Len=16".
std::string capability_line(const pci::Capability& cap);

}  // namespace pmukit::tools
