// pmu-discover -- the PCI view (--pci): lspci -vvv-like text and the pmukit.pci/1 JSON schema.
#pragma once

#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmukit/pci/device.h"

namespace pmukit::tools {

void print_pci_text(Machine& machine, const std::vector<pci::Device>& devices, bool verbose);
// The pmukit.pci/1 document: `head`'s members, then "devices", byte for byte as nlohmann's
// dump(2) of the whole would print it, but written a device at a time and never held whole as
// json values (at 5,120 devices those were most of the memory, more than lspci -vvv uses in all).
void print_pci_json(const nlohmann::ordered_json& head, const std::vector<pci::Device>& devices, std::FILE* out);
// One capability as lspci -vvv names it: "[100 v1] DVSEC Vendor=8086 ID=0001 Rev=1 Len=16".
std::string capability_line(const pci::Capability& cap);

}  // namespace pmukit::tools
