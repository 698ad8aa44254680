// pmu-report -- one pmu-raw run read from its JSON lines (pmu-raw -j, also perf stat -j): every
// event and metric as a chart, with one series per socket, PMU unit or CPU the records name.
#pragma once

#include <cstddef>
#include <istream>
#include <set>
#include <string>
#include <vector>

namespace pmukit::tools {

struct Sample {
  double t = 0;       // end of the interval, seconds since the start of counting (NaN: a run total)
  double value = 0;   // as the record says: count (scaled) or metric value; NaN: not counted
  double y = 0;       // what is plotted: events, value per second of the interval; else the value
  bool lost = false;  // pmu-raw: a counter wrapped twice between reads, the count is too low
};

struct Series {
  std::string label;  // "S0", "uncore_imc_3", "S1 uncore_imc", "CPU2"; "" for all units merged
  std::vector<Sample> samples;
  std::set<std::string> backends;
  double min_running_pct = 100;  // < 100: multiplexed (perf backend)
};

enum class ChartKind { Event, Metric };

struct Chart {
  ChartKind kind = ChartKind::Event;
  std::string name;  // the event as written (merged over boxes), or the metric's name
  std::string unit;  // as the records give it: "MiB", "" (counts), "GB/s"
  std::vector<Series> series;
};

struct RunData {
  std::string source;         // the file name, or "<stdin>"
  bool intervals = true;      // interval records (-I) or one run total per series
  std::vector<double> times;  // distinct interval ends, increasing
  std::vector<Chart> charts;  // in order of first appearance
  std::size_t records = 0;
  std::set<std::string> grouping;  // what series are: "socket", "pmu", "cpu"

  std::size_t count(ChartKind kind) const;
};

// Reads JSON lines (blank lines and perf's '#' comment lines are skipped); throws pmukit::Error "SOURCE:LINE: reason"
// for anything that is not a pmu-raw record, a value that is not a number, time going backwards, or mixed forms.
RunData read_run(std::istream& in, const std::string& source);

}  // namespace pmukit::tools
