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
};

int run_simulator(Machine& machine, const RunOptions& opts);
int advance_clock(Machine& machine, std::uint64_t ms);

}  // namespace pmukit::tools
