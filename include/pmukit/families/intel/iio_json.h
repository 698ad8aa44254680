// pmukit -- the Intel IIO stack mapping as JSON (pmu-rcmap --json: schema pmukit.rcmap/1, docs/json.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "pmukit/discovery/kernel_pmus.h"
#include "pmukit/families/intel/iio_devices.h"

namespace pmukit::discovery {

// The "iio" member: the scheme, the table and how it was chosen, every stack with its PMUs.
nlohmann::ordered_json to_json(const IioTopology& topology);
// One device of the "devices" member: its stack, part, filter terms and the filters that count it
// (whether the kernel registers each filter's PMU, from `kernel`); `name` is lspci's name of it.
nlohmann::ordered_json to_json(const IioDeviceMap& map, const IioTopology& topology, const std::string& name,
                               const KernelPmus& kernel);

}  // namespace pmukit::discovery
