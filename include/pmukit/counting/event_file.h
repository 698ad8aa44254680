// pmukit -- --event-file: Intel perfmon JSON event definitions usable by name in -e.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pmukit/events/perfmon_json.h"
#include "pmukit/syntax/event_spec.h"

namespace pmukit::counting {

struct SpecScale {
  double scale = 1.0;
  std::string unit;
};

// Rewrites the specs that name a loaded event: "UNC_M_CAS_COUNT.RD" (a bare name) becomes
// "uncore_imc/event=0x05,umask=0xcf/" named UNC_M_CAS_COUNT.RD; in "uncore_imc_3/unc_m_cas_count.rd/"
// the name is replaced by its terms. Returns the ScaleUnit of every rewritten spec, by index.
std::map<std::size_t, SpecScale> apply_event_files(const std::vector<events::PerfmonEvents>& files,
                                                   std::vector<syntax::EventSpec>& specs);

}  // namespace pmukit::counting
