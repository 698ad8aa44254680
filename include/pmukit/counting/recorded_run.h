// pmukit -- a run recorded as JSON lines (pmu-raw -j and -o, also perf stat -j) read back: every
// event and metric as a chart, with one series per socket, PMU unit or CPU the records name.
#pragma once

#include <cstddef>
#include <istream>
#include <set>
#include <string>
#include <vector>

namespace pmukit::counting {

struct RecordedSample {
  double t = 0;       // end of the interval, seconds since the start of counting (NaN: a run total)
  double value = 0;   // as the record says: count (scaled) or metric value; NaN: not counted
  double y = 0;       // what is plotted: events, value per second of the interval; else the value
  bool lost = false;  // pmu-raw: a counter wrapped twice between reads, the count is too low
};

struct RecordedSeries {
  std::string label;  // "S0", "uncore_imc_3", "S1 uncore_imc", "CPU2"; "" for all units merged
  std::vector<RecordedSample> samples;
  std::set<std::string> backends;
  double min_running_pct = 100;  // < 100: multiplexed (perf backend)
};

enum class RecordKind { Event, Metric };

struct RecordedChart {
  RecordKind kind = RecordKind::Event;
  std::string name;  // the event as written (merged over boxes), or the metric's name
  std::string unit;  // as the records give it: "MiB", "" (counts), "GB/s"
  std::vector<RecordedSeries> series;
  // pmu-raw: an event counted only for metrics (its records' "metric-input"): their names. Empty
  // for an event asked for with -e (and for perf stat's records, which do not say).
  std::vector<std::string> input_of;
};

struct RecordedRun {
  std::string source;                 // the file name, or "<stdin>"
  bool intervals = true;              // interval records (-I) or one run total per series
  std::vector<double> times;          // distinct interval ends, increasing
  std::vector<RecordedChart> charts;  // in order of first appearance
  std::size_t records = 0;
  std::set<std::string> grouping;  // what series are: "socket", "pmu", "cpu"

  std::size_t count(RecordKind kind) const;
};

// Reads JSON lines (blank lines and perf's '#' comment lines are skipped); throws pmukit::Error "SOURCE:LINE: reason"
// for anything that is not a pmu-raw record, a value that is not a number, time going backwards, or mixed forms.
RecordedRun read_recorded_run(std::istream& in, const std::string& source);

struct SeriesStats {
  std::size_t n = 0;                    // finite values
  double min = 0, median = 0, max = 0;  // NaN when n == 0
};
// Over the finite values (NaN, a gap, is left out).
SeriesStats stats_of(std::vector<double> values);
// Over what a series plots (RecordedSample::y).
SeriesStats stats_of(const RecordedSeries& series);

// The machine-wide series of a chart counted per socket, box or CPU: its series summed per
// interval, labelled "sum" (NaN at an interval where any series has no value).
RecordedSeries sum_series(const RecordedChart& chart);

}  // namespace pmukit::counting
