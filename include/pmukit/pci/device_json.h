// pmukit -- PCI devices as JSON: the pmukit.pci/1 schema (docs/json.md), as pmu-discover --pci
// --json prints it.
#pragma once

#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmukit/pci/device.h"

namespace pmukit::pci {

// The pmukit.pci/1 document to `out`: `head`'s members (schema, source...), then "devices", byte
// for byte as nlohmann's dump(2) of the whole would print it, but written a device at a time and
// never held whole as json values (at 5,120 devices those were most of the memory, more than
// lspci -vvv uses in all).
void write_devices_json(std::FILE* out, const nlohmann::ordered_json& head, const std::vector<Device>& devices);

}  // namespace pmukit::pci
