// pmukit fuzz -- the reader of recorded runs (counting/recorded_run.h), as pmu-report uses it: any
// text a user points it at, perf stat -j's or pmu-raw -j's, whole or cut.
#include <sstream>

#include "fuzz_support.h"
#include "pmukit/counting/recorded_run.h"
#include "pmukit/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(pmukit::fuzz::text(data, size))};
  try {
    auto run = pmukit::counting::read_recorded_run(in, "fuzz");
    (void)run.count(pmukit::counting::RecordKind::Event);
    for (const auto& chart : run.charts) (void)pmukit::counting::sum_series(chart);
  } catch (const pmukit::Error&) {
  }
  return 0;
}
