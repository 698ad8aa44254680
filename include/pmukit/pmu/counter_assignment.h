// pmukit -- placing events on the counters of a box when some events may use only some counters
// (Intel uncore event constraints: IIO inbound events on counters 0-1, outbound on 2-3): a small
// bipartite matching, events on one side, counters on the other.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace pmukit::pmu {

// masks[k] bit i set: event k may use counter i (every mask non-zero, counters 0-31). Returns the counter of each event
// (all different), or nullopt when no placement exists. Deterministic: the events with the fewest counters are placed
// first, each on its lowest free counter, as the kernel's perf_assign_events orders them by weight; an augmenting path
// moves earlier events only when a later one needs it.
std::optional<std::vector<unsigned>> assign_counters(const std::vector<std::uint32_t>& masks);
// The same into counter[k] (as long as masks) without allocating; false when no placement exists.
bool assign_counters(std::span<const std::uint32_t> masks, std::span<unsigned> counter);

// When assign_counters fails: the smallest set of counters S (lowest first among equals) that more
// events are confined to than S has counters (Hall's condition); 0 when a placement exists.
std::uint32_t crowded_counters(const std::vector<std::uint32_t>& masks);

}  // namespace pmukit::pmu
