// pmukit fuzz -- Intel perfmon JSON event files (events::PerfmonEvents::parse, as --event-file).
#include "pmukit/events/perfmon_json.h"
#include "fuzz_support.h"
#include "pmukit/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto events = pmukit::events::PerfmonEvents::parse(pmukit::fuzz::text(data, size), "fuzz");
    for (const auto& e : events.events()) (void)e.alias();
    (void)events.find("UNC_M_CAS_COUNT.RD");
  } catch (const pmukit::Error&) {
  }
  return 0;
}
