// pmukit fuzz -- the /proc/iomem parser (acpi::parse_iomem) and what discovery asks of it: the
// ranges under a device's name, and their sizes (0-ffffffffffffffff has none that fits).
#include "fuzz_support.h"
#include "pmukit/acpi/devices.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto m = pmukit::acpi::parse_iomem(pmukit::fuzz::text(data, size));
  for (const auto& r : m.ranges) {
    if (r.end < r.start) __builtin_trap();  // such a line is passed over
    auto bytes = r.bytes();
    if (bytes && *bytes - 1 != r.end - r.start) __builtin_trap();
    (void)m.named(r.name);
  }
  return 0;
}
