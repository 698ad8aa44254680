// pmu-raw -- the views of Intel PCM's tools: --memory (pcm-memory: DRAM bandwidth per socket and
// memory channel), each interval one table (or CSV / JSON lines), optionally redrawn in place.
#pragma once

#include "counting.h"

namespace pmukit::tools {

// --memory: counts the machine's DRAM bandwidth metrics per interval (-I, 1000 ms unless given)
// and prints each interval's view. Returns the exit status as run_counting does.
int run_memory_view(RawOptions& options);

}  // namespace pmukit::tools
