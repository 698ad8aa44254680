// pmu-report -- the HTML page: what was counted, a summary table (min / median / max of every
// series, per event and per metric) and one SVG chart per event and metric. Self-contained: no
// script, no external style sheet, font or image.
#pragma once

#include <string>
#include <vector>

#include "run_data.h"

namespace pmukit::tools {

struct Stats {
  std::size_t n = 0;                    // finite values
  double min = 0, median = 0, max = 0;  // NaN when n == 0
};
Stats stats_of(std::vector<double> values);

std::string html_report(const RunData& run, const std::string& title);

}  // namespace pmukit::tools
