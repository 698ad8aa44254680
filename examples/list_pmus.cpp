// pmukit -- embedding example: list the uncore PMU units of a machine (live, or the snapshot
// directory given as argv[1]) with the kernel PMU name perf knows each by.
#include <cstdio>

#include "pmukit/access/machine.h"
#include "pmukit/families/registry.h"
#include "pmukit/util/error.h"

int main(int argc, char** argv) {
  pmukit::MachineOptions opts;
  if (argc > 1) opts.root = argv[1];
  try {
    pmukit::Machine machine(opts);
    auto found = pmukit::families::discover(machine);
    for (const auto& u : found.inventory.units)
      std::printf("socket %d  %-24s %-10s %u counters x %u bits\n", u.socket, u.name.c_str(), u.type_name.c_str(),
                  u.num_counters, u.counter_width);
    std::printf("%zu PMU units, %zu PCI devices\n", found.inventory.units.size(), found.devices.size());
  } catch (const pmukit::Error& e) {
    std::fprintf(stderr, "list_pmus: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
