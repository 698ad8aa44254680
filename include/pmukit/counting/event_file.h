// pmukit -- --event-file: Intel perfmon JSON event definitions usable by name in -e.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pmukit/events/perfmon_json.h"
#include "pmukit/syntax/event_spec.h"

namespace pmukit::counting {

struct SpecScale {
  double scale = 1.0;
  std::string unit;
};

// Rewrites the specs that name a loaded event: "unc_m_cas_count.rd" (a bare name, in any case)
// becomes "uncore_imc/event=0x05,umask=0xcf/" named as written; in "uncore_imc_3/unc_m_cas_count.rd/"
// the name is replaced by its terms. Returns the ScaleUnit of every rewritten spec, by index.
std::map<std::size_t, SpecScale> apply_event_files(const std::vector<events::PerfmonEvents>& files,
                                                   std::vector<syntax::EventSpec>& specs);
// The same over files in order (the first that names an event wins), leaving alone every name in
// `kernel_names` (lower case): a name a PMU here defines itself keeps its kernel meaning.
std::map<std::size_t, SpecScale> apply_event_files(const std::vector<const events::PerfmonEvents*>& files,
                                                   std::vector<syntax::EventSpec>& specs,
                                                   const std::set<std::string, std::less<>>& kernel_names);

// The event names the PMU kinds of `kinds` define (their kernel aliases, platform::Database's),
// lower case.
std::set<std::string, std::less<>> kernel_event_names(const std::vector<std::string>& kinds);

}  // namespace pmukit::counting
