// pmu-report -- series drawn over each other. Sockets or boxes with the same traffic give lines
// that coincide, and the last one drawn would hide the others (one colour where the legend
// promises two). Such lines are found on screen, where they meet, and drawn so that each shows:
// the first solid, each other one dashed on top of it with its dashes where the others' gaps are,
// so the shared line shows every colour in turn; the legend says which series it coincides with.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace pmukit::tools {

struct ScreenPoint {
  double x = 0, y = 0;  // y NaN: a gap
};

struct Overlap {
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::size_t with = kNone;  // the first earlier series it is drawn over
  bool whole = false;        // over its whole length (else in places)
  std::size_t place = 0;     // its place among the series drawn over each other (0: drawn first)
  std::size_t of = 1;        // how many they are
};

// For each line (points in time order), which earlier line it lies on: at the same x within
// `tolerance` pixels of it along a segment (two points in a row), or at every point it has.
std::vector<Overlap> overlaps(const std::vector<std::vector<ScreenPoint>>& lines, double tolerance);

// stroke-dasharray and stroke-dashoffset of a line among `o.of` drawn over each other: "" for the
// first (solid) and for a line that meets no other; each other one a dash of `dash` pixels where
// the others leave a gap.
struct Dashes {
  std::string array, offset;
};
Dashes overlap_dashes(const Overlap& o, double dash);

// The radius of a line's point markers: concentric, the first drawn largest, so a point where
// several series have one value shows every colour as a ring.
double marker_radius(const Overlap& o);

}  // namespace pmukit::tools
