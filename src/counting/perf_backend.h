// pmukit -- the perf backend: the same events counted through perf_event_open.
#pragma once

#include "pmukit/counting/backend.h"
#include "pmukit/discovery/system.h"

namespace pmukit::counting {

// `specs` are the events this backend counts; `spec_index[i]` is specs[i]'s position in the -e
// list. With `per_socket`, every group is opened once per socket on that socket's CPUs, so counts
// can be split by socket as the direct backend splits them.
std::unique_ptr<Backend> make_perf_backend(Machine& machine, std::vector<syntax::EventSpec> specs,
                                           std::vector<std::size_t> spec_index, bool per_socket,
                                           const discovery::Topology& topology, const std::vector<int>& cpus = {});

}  // namespace pmukit::counting
