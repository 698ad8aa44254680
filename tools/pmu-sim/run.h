// pmu-sim -- the simulator loop and the virtual-clock client.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pmukit {
class Machine;
}

namespace pmukit::tools {

struct RunOptions {
  bool realtime = false;
  std::uint64_t step_ms = 10;
  std::vector<std::string> rates;
  std::string scenario;  // a file, or the name of a bundled one (platforms/sim/scenarios/NAME.json)
};

int run_simulator(Machine& machine, const RunOptions& opts);
int advance_clock(Machine& machine, std::uint64_t ns);
// Returns once a pmu-sim serves the machine (its clock page is there and its server holds it), as
// soon as it does; an error after `timeout_ns` without one.
int wait_for_simulator(Machine& machine, std::uint64_t timeout_ns);
// Prints the serving simulator's clock (ns).
int print_clock(Machine& machine);
// "1000" (milliseconds), or a whole number with a unit: "127496157ns", "20us", "168ms", "2s".
std::uint64_t parse_span_ns(const std::string& text);

}  // namespace pmukit::tools
