// pmukit -- what a counting backend gives the run loop: rows of counts, one per event per PMU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/syntax/event_spec.h"

namespace pmukit {
class Machine;
}
namespace pmukit::discovery {
struct Inventory;
}

namespace pmukit::counting {

// The names are views: every row of every interval names the same few strings, which the backend
// (or the run loop's event list) owns for the whole run, so a row costs no allocation.
// Laid out for the interval path: what a read writes and a report reads every interval (the counts,
// the times, the scale, the flags, the row's spec and place) fills the first 64-byte line, the names
// the second, and a row starts on a line, so that a steady-state interval touches one line per row.
struct alignas(64) Row {
  std::uint64_t count = 0;       // since the previous read (intervals) or since start (totals), scaled
  std::uint64_t raw = 0;         // what the counter counted while it ran: count before scaling
  double scale = 1.0;            // alias .scale: value shown = count * scale
  std::uint64_t enabled_ns = 0;  // time the event was enabled over the read's window
  std::uint64_t running_ns = 0;  // time it was on a counter (less when it is multiplexed)
  std::size_t spec = 0;          // index of the -e event it counts (output order and merging)
  int socket = -1;
  // The CPU the row was counted on (perf backend, -A), or its unit counts from where its family
  // says (AMD's L3s, one per CCX under one PMU name); -1: its place by socket and PMU name.
  int cpu = -1;
  bool lost = false;  // an overflow the arithmetic could not account for
  // The counters the row already sums: 1 for a unit's row; a perf row sums its event on each CPU
  // it was opened on (perf stat's "aggregate-number" counts them).
  std::uint32_t units = 1;
  std::string_view event;    // display name: the event as written, or its name= label
  std::string_view pmu;      // the kernel PMU name of the unit (uncore_imc_3)
  std::string_view unit;     // alias .unit
  std::string_view backend;  // "direct" or "perf"
};
static_assert(sizeof(Row) == 128, "a row is two cache lines: the counts, then the names");

// Adds a later read of the same event to `into`: the raw counts and both times are summed and the
// sum scaled once, as perf stat scales an interval's deltas (or the run's totals) -- not a sum of
// each read's scaled counts, which a read while the event was off the counters would skew.
void add_read(Row& into, const Row& later);
// count = raw x enabled / running, perf's rounding (perf::scale_count).
void scale_row(Row& row);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Appends the counts since the previous read (the first read: since start) to `into`. The caller
  // owns and reuses `into`, so a steady-state interval allocates nothing.
  virtual void read(std::uint64_t window_ns, std::vector<Row>& into) = 0;
  // Whether every read appends the same rows (names, order, number) for the whole run, so that a
  // caller may keep them and call reread() instead: the names are then not copied every interval.
  virtual bool rereads() const { return false; }
  // What read() does, written over the rows a previous read appended, which the caller kept at
  // rows[at...] (their names as read() wrote them); `at` moves past them. Only where rereads().
  virtual void reread(std::uint64_t window_ns, std::vector<Row>& rows, std::size_t& at) {
    (void)window_ns, (void)rows, (void)at;
  }
  // How long the run loop may go between two read()s without a counter wrapping unseen (the
  // kernel keeps perf's counts 64-bit, so only direct counters narrower than that need a bound).
  virtual std::uint64_t max_read_period_ns() const { return UINT64_MAX; }
  // Why each PMU is counted the way it is ("uncore_imc_0..7: direct: MMIO through /dev/mem").
  virtual std::vector<std::string> notes() const = 0;
  // The same in short, for a view that says what counts it in one line: how each backend counts
  // (its units, its clock, its multiplexing), without the decision for each PMU.
  virtual std::vector<std::string> summary() const { return notes(); }
  // Problems when putting registers back, for the exit status.
  virtual std::vector<std::string> finish() { return {}; }
};

}  // namespace pmukit::counting
