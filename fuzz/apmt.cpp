// pmukit fuzz -- the ACPI APMT parser (acpi::parse_apmt) and its decode, on any bytes: every
// length, node count and field a table can hold.
#include "pmukit/acpi/apmt.h"
#include "fuzz_support.h"
#include "pmukit/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto t = pmukit::acpi::parse_apmt({data, size}, "fuzz");
    (void)pmukit::acpi::describe(t);
    (void)t.all_warnings();
  } catch (const pmukit::Error&) {
  }
  return 0;
}
