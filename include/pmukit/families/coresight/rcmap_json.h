// pmukit -- the NVIDIA PCIe RC mapping of a device as JSON (pmu-rcmap --json: schema
// pmukit.rcmap/1, docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "pmukit/discovery/kernel_pmus.h"
#include "pmukit/families/coresight/nvidia_rcmap.h"

namespace pmukit::discovery {

// One device of the "devices" member: its kind and root port, the mapping and the filters that
// count it (whether the kernel registers each filter's PMU, from `kernel`), or the error.
nlohmann::ordered_json to_json(const DeviceRcMap& map, const KernelPmus& kernel);

}  // namespace pmukit::discovery
