// pmu-report -- one chart as inline SVG: a time series of every series of an event or metric
// (interval runs), or one bar per series (run totals); axes with units and ticks, and a legend.
#pragma once

#include <string>

#include "pmukit/counting/recorded_run.h"
#include "scale.h"

namespace pmukit::tools {

using counting::RecordedChart;
using counting::RecordedRun;
using counting::RecordedSample;
using counting::RecordedSeries;
using counting::RecordKind;

// The colour and dash pattern of series `i` (colours repeat with a new dash after ten series).
struct SeriesStyle {
  std::string color;
  std::string dash;  // stroke-dasharray, "" for solid
};
SeriesStyle series_style(std::size_t i);

// How a chart's values are shown (used by the summary table too, so both agree).
DisplayUnit chart_unit(const RecordedChart& chart, const RecordedRun& run);

// `id` names the SVG's title element (aria-labelledby); the chart is drawn for a run ending at
// `run.times.back()` seconds.
std::string svg_chart(const RecordedChart& chart, const RecordedRun& run, const std::string& id);

// & < > " ' as entities.
std::string escape(const std::string& text);

}  // namespace pmukit::tools
