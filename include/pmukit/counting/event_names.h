// pmukit -- every event name a counting Request takes on a machine, for shell completion.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/events/perfmon_json.h"

namespace pmukit {
class Machine;
}
namespace pmukit::platform {
struct PmuKind;
}

namespace pmukit::counting {

// Sorted: "PMU/" for every PMU name (units, merged families, the kernel's perf PMUs), "PMU/EVENT/"
// for each of its named events, the names of the events of `event_files` (Intel perfmon JSON)
// whose PMU is here, and those of the uncore events perf knows on the CPU model
// (events::builtin_uncore_events) whose PMU is here, in lower case as perf list shows them.
std::vector<std::string> event_names(const Machine& machine, const discovery::Inventory& inventory,
                                     const std::vector<std::string>& event_files = {});

// The PMU kinds of the units here (platform::Database's), each with its units' PMU names in
// inventory order.
std::map<std::string, std::vector<std::string>> units_by_kind(const discovery::Inventory& inventory);

// The platform PMU kind of each PMU name pmukit discovered here (uncore_imc_0 -> intel_skx_imc, and
// the merged name uncore_imc when every unit of it has that kind), for metrics whose event codes
// belong to some kinds only (metrics::Metric::applies_to). A PMU only the kernel knows has none.
using PmuKinds = std::map<std::string, const platform::PmuKind*, std::less<>>;
PmuKinds pmu_kinds_here(const discovery::Inventory& inventory);
const platform::PmuKind* kind_of(const PmuKinds& kinds, std::string_view pmu);

// The events of a perfmon file whose PMU is here (a discovered unit or a kernel perf PMU), and how
// many others the file holds.
struct EventsHere {
  std::vector<const events::PerfmonEvent*> here;  // into the file
  std::size_t elsewhere = 0;
};
EventsHere events_here(const Machine& machine, const discovery::Inventory& inventory,
                       const events::PerfmonEvents& file);

}  // namespace pmukit::counting
