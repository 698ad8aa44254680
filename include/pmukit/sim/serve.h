// pmukit -- serving a simulated machine: the loop that answers clients of the clock page and steps
// the register models (what `pmu-sim run` runs), and workload scenarios by file or bundled name.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "pmukit/sim/clock.h"
#include "pmukit/sim/simulator.h"

namespace pmukit {
class Machine;
}

namespace pmukit::sim {

struct ServeOptions {
  // Real time: the models step every period, and at once when a client asks to settle (it wrote
  // controls and waits for them to take effect), so programming hundreds of units does not wait
  // hundreds of periods. Virtual time (the server's mode): the clock moves only when a client asks.
  std::uint64_t period_ns = 10'000'000;
  // Each fault the simulator finds (Simulator::faults()), once, as it appears.
  std::function<void(const std::string&)> on_fault;
};

// Serves `server`'s clock page in its mode and steps `simulator` until pmukit::g_interrupted. An
// idle server sleeps on the page's doorbell (no polling) and releases a client killed holding it.
void serve(Simulator& simulator, ClockServer& server, const ServeOptions& options);

// Adds the workload scenario `name` to `rates`: a file, or a bundled one (platforms/sim/scenarios/
// NAME.json); returns what names it in messages. UsageError when it is neither; Error when it names
// a unit `inventory` does not have (a scenario of another machine would count nothing).
std::string add_named_scenario(Rates& rates, const std::string& name, const Machine& machine,
                               const discovery::Inventory& inventory);

}  // namespace pmukit::sim
