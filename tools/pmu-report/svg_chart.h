// pmu-report -- one chart as inline SVG: a time series of every series of an event or metric
// (interval runs), or one bar per series (run totals); axes with units and ticks, and a legend.
#pragma once

#include <string>

#include "run_data.h"
#include "scale.h"

namespace pmukit::tools {

// The colour and dash pattern of series `i` (colours repeat with a new dash after ten series).
struct SeriesStyle {
  std::string color;
  std::string dash;  // stroke-dasharray, "" for solid
};
SeriesStyle series_style(std::size_t i);

// How a chart's values are shown (used by the summary table too, so both agree).
DisplayUnit chart_unit(const Chart& chart, const RunData& run);

// `id` names the SVG's title element (aria-labelledby); the chart is drawn for a run ending at
// `run.times.back()` seconds.
std::string svg_chart(const Chart& chart, const RunData& run, const std::string& id);

// & < > " ' as entities.
std::string escape(const std::string& text);

}  // namespace pmukit::tools
