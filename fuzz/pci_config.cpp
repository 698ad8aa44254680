// pmukit fuzz -- one device's configuration space (up to 4096 bytes, as sysfs gives it), written
// as an lspci -xxxx dump and read through libpci into the capability walk: standard and extended
// lists, VSEC/DVSEC headers, the PCI Express capability.
#include <fmt/format.h>

#include "fuzz_support.h"
#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

using namespace pmukit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) size = 4096;
  size -= size % 16;  // lspci prints whole 16-byte lines
  if (size < 64) return 0;
  std::string dump = "0000:00:00.0 Class 0000: Device 0000:0000\n";
  for (std::size_t off = 0; off < size; off += 16) {
    dump += off < 0x100 ? fmt::format("{:02x}:", off) : fmt::format("{:03x}:", off);
    for (std::size_t i = 0; i < 16; ++i) dump += fmt::format(" {:02x}", data[off + i]);
    dump += '\n';
  }
  auto file = fuzz::scratch() / "config.txt";
  write_file(file, dump);
  try {
    MachineOptions o{fuzz::scratch()};
    o.pci_dump = file;
    Machine machine(o);
    (void)pci::scan(machine, {});
  } catch (const Error&) {
  }
  return 0;
}
