// pmukit -- a report's rows summed the way perf stat aggregates them: per event over every unit
// (perf merges an uncore PMU's units), per event and socket (--per-socket), or per event and unit
// (--per-box, perf's --no-merge and -A), per event and die (--per-die) or NUMA node (--per-node) of
// the CPU each unit counts from (pmu_places.h). A backend gives one Row per event and unit (or per event and
// socket, for perf); a RowGroups makes one line per (event, group), in -e order, each the row
// itself where it is alone in its group, else the rows' sum.
//
// Rows arrive grouped by backend and unit, not by event, and in the same order every interval:
// where each row goes is planned once and reused while the rows stay the same, so a steady-state
// interval neither allocates nor looks anything up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "pmukit/counting/backend.h"
#include "pmukit/counting/pmu_places.h"

namespace pmukit::counting {

enum class Grouping { Merged, PerSocket, PerBox, PerDie, PerNode, PerCpu };

// What a row is summed under: its socket (PerSocket), its socket and die (PerDie), its NUMA node
// (PerNode), its unit's PMU (PerBox), or none of them (Merged, and machine-wide rows such as
// duration_time, which belong to no socket or unit; and with PerDie or PerNode, rows of a PMU
// without a known place).
struct Placement {
  int socket = -1;
  int die = -1;
  int node = -1;
  std::string_view pmu;
  int cpu = -1;  // PerCpu (perf stat -A): the CPU the row was counted on, or its unit counts from
  friend bool operator<(const Placement& a, const Placement& b) {
    return std::tuple(a.socket, a.die, a.node, a.pmu, a.cpu) < std::tuple(b.socket, b.die, b.node, b.pmu, b.cpu);
  }
};

class RowGroups {
 public:
  // `places` (PerDie, PerNode): where each PMU instance counts, by the rows' PMU names.
  explicit RowGroups(Grouping grouping, PmuPlaces places = {}) : grouping_(grouping), places_(std::move(places)) {}
  Grouping grouping() const { return grouping_; }
  Placement placement(const Row& r) const;

  // One line per (event, placement), ordered by event (the row's spec), then placement. A line of
  // several rows is their sum, as perf stat sums them: the scaled counts, the raw counts, the
  // enabled and the running times, and any lost overflow; its names are the first row's. Valid
  // until the next call and while `rows` lives. `as_before`: the caller knows the rows are the last
  // call's (events, units, order; only counts and times new), so the plan is not checked again.
  const std::vector<const Row*>& aggregate(const std::vector<Row>& rows, bool as_before = false);
  // Whether the last aggregate() planned anew (the first call, or rows that differ from the last
  // in number, event or unit): what a caller keeps per line must then be made again.
  bool replanned() const { return replanned_; }
  // The lines of the last aggregate(), and the first row (of the rows it was given) in line `i`.
  std::size_t lines() const { return outputs_; }
  std::size_t first_row(std::size_t line) const { return first_[line]; }
  // How many counters line `i` sums: its rows' units (perf stat's "aggregate-number" of a
  // --per-socket line: the CPUs it summed), as planned.
  std::size_t members(std::size_t line) const { return members_[line]; }

 private:
  bool plan_matches(const std::vector<Row>& rows) const;
  void plan(const std::vector<Row>& rows);

  Grouping grouping_;
  PmuPlaces places_;
  bool replanned_ = false;
  // The plan: each row's key, and the line it is summed into.
  std::vector<std::pair<std::size_t, Placement>> keys_;
  struct PlannedRow {  // and what the key was made of
    std::size_t spec;
    int socket;
    int cpu;
    const char* pmu;
    std::size_t pmu_size;
  };
  std::vector<PlannedRow> rows_;
  std::vector<std::size_t> slot_;
  std::size_t outputs_ = 0;
  std::vector<std::size_t> first_;    // per line: the first row shown or summed in it
  std::vector<std::uint8_t> single_;  // and whether it is the only one
  std::vector<std::size_t> members_;  // and how many counters (rows' units) it sums
  bool all_single_ = false;           // as many lines as rows: each the only one
  std::vector<const Row*> shown_;     // per line: its row, or its sum in merged_
  const Row* shown_of_ = nullptr;     // all_single_: the rows shown_ points into
  std::vector<Row> merged_;
};

}  // namespace pmukit::counting
