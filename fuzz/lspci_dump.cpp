// pmukit fuzz -- 'lspci -xxxx' dump files, as --pci-dump reads them: libpci's dump method, then
// pmukit's scan (identity, BARs, the capability walk) over every device it found.
#include "fuzz_support.h"
#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

using namespace pmukit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto file = fuzz::scratch() / "dump.txt";
  write_file(file, fuzz::text(data, size));
  try {
    MachineOptions o{fuzz::scratch()};
    o.pci_dump = file;
    Machine machine(o);
    (void)pci::scan(machine, {});
  } catch (const Error&) {
  }
  return 0;
}
