// pmukit -- watching what a machine root opens: how pmu-discover --capture learns which files
// discovery reads (snapshot/capture.h). Kept apart from confined_root.h, which every layer includes.
#pragma once

#include <filesystem>
#include <functional>

namespace pmukit {

class ConfinedRoot;

// Told of every path below the root that `root` opens, stats, lists or reads a link of (relative
// to the root), with the open's flags. Paths outside the root (-O overrides) are not reported.
using OpenObserver = std::function<void(const std::filesystem::path& rel, int flags)>;

// One observer at a time, for one root; nullptr (or an empty observer) stops it.
void set_open_observer(const ConfinedRoot* root, OpenObserver observer);

}  // namespace pmukit
