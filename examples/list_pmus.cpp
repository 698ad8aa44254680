// Embedding pmukit: list the PCI devices of a machine (live, or the snapshot given as argv[1]).
#include <cstdio>

#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "pmukit/util/error.h"

int main(int argc, char** argv) {
  pmukit::MachineOptions opts;
  if (argc > 1) opts.root = argv[1];
  try {
    pmukit::Machine machine(opts);
    for (const auto& d : pmukit::pci::scan(machine))
      std::printf("%s %04x:%04x caps=%zu\n", d.bdf.str().c_str(), d.vendor_id, d.device_id, d.caps.size());
  } catch (const pmukit::Error& e) {
    std::fprintf(stderr, "list_pmus: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
