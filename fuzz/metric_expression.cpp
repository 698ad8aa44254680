// pmukit fuzz -- metric formulas (metrics::Expression): parse, print, and evaluate with every
// variable at 1 and at 0 (division by zero is a result, not a crash).
#include <vector>

#include "fuzz_support.h"
#include "pmukit/metrics/expression.h"
#include "pmukit/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto e = pmukit::metrics::Expression::parse(pmukit::fuzz::text(data, size), "fuzz");
    (void)e.canonical();
    std::vector<double> ones(e.variables().size(), 1.0), zeros(e.variables().size(), 0.0);
    (void)e.evaluate(ones);
    (void)e.evaluate(zeros);
  } catch (const pmukit::Error&) {
  }
  return 0;
}
