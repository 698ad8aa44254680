// pmu-report -- the HTML page: what was counted, a summary table (min / median / max of every
// series, per event and per metric) and one SVG chart per event and metric. Self-contained: no
// script, no external style sheet, font or image.
#pragma once

#include <string>
#include <vector>

#include "pmukit/counting/recorded_run.h"

namespace pmukit::tools {

using counting::RecordedChart;
using counting::RecordedRun;
using counting::RecordedSample;
using counting::RecordedSeries;
using counting::RecordKind;

using Stats = counting::SeriesStats;

struct PageOptions {
  std::string title;
  // Chart the events pmu-raw counted only for the run's metrics too (by default the metric shows
  // them, and the page names them once).
  bool inputs = false;
};

std::string html_report(const RecordedRun& run, const PageOptions& options);

}  // namespace pmukit::tools
