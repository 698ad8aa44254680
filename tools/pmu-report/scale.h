// pmu-report -- numbers for people: axis ranges with round ticks, units scaled to a readable size
// (bytes to GiB), SI prefixes on counts, the same digits for every tick of an axis.
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
  double factor = 1;  // multiply a value by it to show it in `label`
  std::string label;  // "GiB/s", "counts/s", "GB/s"
  bool si = true;     // numbers take k, M, G, T, P suffixes (units that carry no prefix of their own)
};

// How values in `unit` (as pmu-raw gives it, over an interval when `per_second`) whose largest
// magnitude is `max_abs` are shown: byte units (Bytes, KiB, MiB, ...) move to the binary unit that
// keeps numbers under 1024; "" is counts.
DisplayUnit display_unit(const std::string& unit, bool per_second, double max_abs);

// Tick labels: one prefix and one number of decimals for all ticks of an axis.
std::vector<std::string> tick_labels(const Axis& axis, bool si);

// A value on its own (a table cell): four significant digits, SI-prefixed when `si`.
std::string format_value(double v, bool si);

}  // namespace pmukit::tools
