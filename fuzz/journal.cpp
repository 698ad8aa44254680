// pmukit fuzz -- the journal parser (pmu::parse_journal): the text a killed run leaves, read back
// before anything is restored. Every header, register line, count, checksum and undo section.
#include "pmukit/pmu/journal.h"
#include "fuzz_support.h"
#include "pmukit/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto j = pmukit::pmu::parse_journal(pmukit::fuzz::text(data, size), "fuzz");
    // What parses formats back to a journal that parses to the same registers.
    auto again = pmukit::pmu::parse_journal(pmukit::pmu::format_journal(j), "again");
    if (again.entries != j.entries || again.undo != j.undo || again.root != j.root) __builtin_trap();
  } catch (const pmukit::Error&) {
  }
  return 0;
}
