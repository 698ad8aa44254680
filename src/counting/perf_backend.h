// pmukit -- the perf backend: the same events counted through perf_event_open.
#pragma once

#include "pmukit/counting/backend.h"
#include "pmukit/discovery/system.h"

namespace pmukit::counting {

// How the counts are split: PerSocket opens every group once per socket on that socket's CPUs, so
// counts can be split by socket as the direct backend splits them; PerCpu (perf stat -A) opens it
// once per CPU it counts on (its PMU's cpumask, or every CPU), each row naming its CPU.
enum class PerfSplit { None, PerSocket, PerCpu };

// `specs` are the events this backend counts; `spec_index[i]` is specs[i]'s position in the -e
// list. `cpus` (-C): only these CPUs.
std::unique_ptr<Backend> make_perf_backend(Machine& machine, std::vector<syntax::EventSpec> specs,
                                           std::vector<std::size_t> spec_index, PerfSplit split,
                                           const discovery::Topology& topology, const std::vector<int>& cpus = {});

}  // namespace pmukit::counting
