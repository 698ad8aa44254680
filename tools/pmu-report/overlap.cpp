// pmu-report -- series drawn over each other.
#include "overlap.h"

#include <cmath>

#include <fmt/format.h>

namespace pmukit::tools {

namespace {

enum class Meet { None, InPlaces, Whole };

// Where `b` lies on `a`: points at the same x (the same interval end) compared, in time order.
Meet meet(const std::vector<ScreenPoint>& a, const std::vector<ScreenPoint>& b, double tolerance) {
  std::size_t i = 0, j = 0, on_points = 0;
  bool whole = a.size() == b.size(), segment = false, previous_on = false;
  while (i < a.size() && j < b.size()) {
    if (a[i].x != b[j].x) {  // an interval one of them has no record for
      whole = previous_on = false;
      ++(a[i].x < b[j].x ? i : j);
      continue;
    }
    const bool gaps = std::isnan(a[i].y) && std::isnan(b[j].y);
    const bool on = !std::isnan(a[i].y) && !std::isnan(b[j].y) && std::fabs(a[i].y - b[j].y) <= tolerance;
    segment = segment || (on && previous_on);
    whole = whole && (on || gaps);
    on_points += on;
    previous_on = on;
    ++i, ++j;
  }
  if (whole && on_points) return Meet::Whole;
  return segment ? Meet::InPlaces : Meet::None;
}

}  // namespace

std::vector<Overlap> overlaps(const std::vector<std::vector<ScreenPoint>>& lines, double tolerance) {
  std::vector<Overlap> out(lines.size());
  std::vector<std::size_t> group(lines.size());  // the first line of each line's group
  std::vector<std::size_t> size(lines.size(), 1);
  for (std::size_t j = 0; j < lines.size(); ++j) {
    group[j] = j;
    for (std::size_t i = 0; i < j; ++i) {
      const Meet m = meet(lines[i], lines[j], tolerance);
      if (m == Meet::None) continue;
      out[j].with = i;
      out[j].whole = m == Meet::Whole;
      group[j] = group[i];
      out[j].place = size[group[j]]++;
      break;
    }
  }
  for (std::size_t j = 0; j < lines.size(); ++j) out[j].of = size[group[j]];
  return out;
}

Dashes overlap_dashes(const Overlap& o, double dash) {
  if (o.of < 2 || o.place == 0) return {};
  // The pattern repeats every `of` dashes; this line's dash is the place-th of them (the first's
  // place is its solid line showing through).
  const double period = dash * static_cast<double>(o.of);
  return {fmt::format("{} {}", dash, period - dash), fmt::format("{}", period - dash * static_cast<double>(o.place))};
}

double marker_radius(const Overlap& o) {
  if (o.of < 2) return 2.8;
  constexpr double kLargest = 4.4, kSmallest = 1.8;
  return kLargest - (kLargest - kSmallest) * static_cast<double>(o.place) / static_cast<double>(o.of - 1);
}

}  // namespace pmukit::tools
