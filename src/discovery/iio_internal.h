// pmukit -- internal: what the IIO mapping files share (iio_stacks.cpp, iio_kernel.cpp, iio_map.cpp).
#pragma once

#include <string>
#include <vector>

#include "pmukit/discovery/iio_map.h"

namespace pmukit::discovery {

// The kernel's logical die of a package: its place among the (package, die) pairs of the
// topology, as topology_logical_die_id numbers them; the package itself when the topology is empty.
int iio_logical_die(const Topology& topo, int socket);
// The package of logical die `die` (the inverse), -1 when there is none.
int iio_socket_of_die(const Topology& topo, int die);

// When the registers cannot say: the locator device's NUMA node, else the order it was found
// (as PCM does). Adds a warning saying which.
int iio_socket_fallback(const Topology& topo, const pci::Device& locator, int order,
                        std::vector<std::string>& warnings);

// The stack's PMU names (pmu_name, free_running) from its PMU number.
void name_pmus(const platform::IioMapScheme& scheme, IioStack& stack);

// Linux uncore_iio_<n>/die<x> files (segment:bus): cross-checked against the stacks read from
// config space, or, when config space could not be read at all (`use_kernel`), the stacks.
void cross_check_kernel(Machine& machine, const Topology& topo, IioTopology& out, bool use_kernel);

}  // namespace pmukit::discovery
