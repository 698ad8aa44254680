// pmu-report -- numbers for people: axis ranges with round ticks, units scaled to a readable size
// (bytes to GB, decimal as perf's and PCM's bandwidths are), SI prefixes on counts, the same digits
// for every tick of an axis.
#pragma once

#include <string>
#include <vector>

namespace pmukit::tools {

struct Axis {
  double lo = 0, hi = 1, step = 1;
  std::vector<double> ticks;  // lo, lo + step, ..., hi
};

// The smallest range of round ticks (1, 2 or 5 times a power of ten) holding [lo, hi], about
// `target` intervals of it.
Axis nice_axis(double lo, double hi, int target = 5);

struct DisplayUnit {
  double factor = 1;   // multiply a value by it to show it in `label`
  std::string label;   // "GB/s", "counts/s", "ns"
  bool si = true;      // numbers take k, M, G, T, P suffixes (units that carry no prefix of their own)
  std::string define;  // for data: what the unit is, "1 GB = 10⁹ bytes" ("" for bytes and other units)
};

// How values in `unit` (as pmu-raw gives it, over an interval when `per_second`) whose largest
// magnitude is `max_abs` are shown. Data, whatever unit the input gives (an event's MiB or Bytes, a
// metric's GB/s or MB/s), is shown in one system: decimal bytes (kB, MB, GB, TB: powers of 1000),
// the unit that keeps numbers under 1000, as perf and PCM print bandwidth; so an event's MiB per
// second and the metric made of it show the same traffic as the same number. "" is counts.
DisplayUnit display_unit(const std::string& unit, bool per_second, double max_abs);

// Whether `unit` is data (an amount of bytes, or bytes per second).
bool is_data_unit(const std::string& unit);

// An axis title: the unit, and what it is where it is data ("GB/s (1 GB = 10⁹ bytes)").
std::string axis_title(const DisplayUnit& u);

// Tick labels: one prefix and one number of decimals for all ticks of an axis.
std::vector<std::string> tick_labels(const Axis& axis, bool si);

// A value on its own (a table cell): four significant digits, SI-prefixed when `si`.
std::string format_value(double v, bool si);

}  // namespace pmukit::tools
