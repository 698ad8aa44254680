// pmukit fuzz -- pmu-report's reader of pmu-raw's JSON lines (tools/pmu-report/run_data.cpp): any
// text a user points it at, perf stat -j's or pmu-raw -j's, whole or cut.
#include <sstream>

#include "fuzz_support.h"
#include "pmu-report/run_data.h"
#include "pmukit/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(pmukit::fuzz::text(data, size))};
  try {
    auto run = pmukit::tools::read_run(in, "fuzz");
    (void)run.count(pmukit::tools::ChartKind::Event);
  } catch (const pmukit::Error&) {
  }
  return 0;
}
