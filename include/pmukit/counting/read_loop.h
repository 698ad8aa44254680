// pmukit -- the read loop: a Run's counters read at intervals, over a fixed duration or a command's
// lifetime, often enough that no narrow direct counter wraps twice unseen; the counts of each
// interval (or of the whole run) and the metrics over them handed to a Sink. Time comes from the
// run's Clock: CLOCK_MONOTONIC on hardware, pmu-sim's virtual clock on a simulated snapshot (so
// interval tests are exact and instant). pmu-raw prints what it is handed; pmu-exporter publishes it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/counting/backend.h"
#include "pmukit/counting/counting.h"
#include "pmukit/counting/metric_runner.h"

namespace pmukit::counting {

struct LoopOptions {
  std::uint64_t interval_ns = 0;                // a report every interval; 0: one report of the totals
  std::optional<std::uint64_t> interval_count;  // stop after this many intervals
  std::optional<std::uint64_t> duration_ns;     // stop after this long
  std::vector<std::string> command;             // counted over: spawned at the start, the run ends with it
  // The duration bounds the command too (perf stat --timeout): a command still running when it has
  // passed, in real time since the command started, is sent SIGTERM. Without it the command's end
  // alone ends a run that has one.
  bool end_stops_workload = false;
  // On pmu-sim's virtual time, only watch the clock (someone else moves it: pmu-sim advance), napping
  // `watch_nap_ns` between looks, rather than sleeping it forward to the next interval.
  bool watch_virtual_time = false;
  std::uint64_t watch_nap_ns = 20'000'000;  // also while nothing but a signal ends the run
  // After the clock jumped past several intervals: one report for all of them, the next a whole
  // interval later (rather than one report per interval the jump passed).
  bool skip_missed_intervals = false;
  bool report_at_start = false;       // a report of the start itself (every row, counting nothing yet)
  bool partial_last_interval = true;  // the interval a signal or the end cut short is reported too
  bool evaluate_metrics = true;       // the run's metrics over each report's counts
};

class Sink {
 public:
  virtual ~Sink() = default;
  // An interval ending `since_start_ns` after the start: the counts of its `window_ns` (raw counts and
  // times summed over its reads and scaled once, as perf stat scales an interval) and its metrics.
  virtual void interval(std::uint64_t since_start_ns, std::uint64_t window_ns, const std::vector<Row>& rows,
                        const std::vector<MetricRow>& metrics) = 0;
  // Without intervals: the counts and metrics of the whole run, once its registers are back.
  virtual void totals(std::uint64_t elapsed_ns, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics) {
    (void)elapsed_ns, (void)rows, (void)metrics;
  }
  // Set by the read loop before each interval(): whether its rows are the last interval()'s rows
  // (the same events, units and order; only the counts and times new), as a backend that rereads
  // gives them. A sink may then reuse what it worked out from them without checking them again.
  bool rows_as_before = false;
};

class ReadLoop {
 public:
  ReadLoop(Run& run, LoopOptions options, Sink& sink)
      : run_(run), o_(std::move(options)), clock_(*run.time.clock), backend_(*run.backend), sink_(sink) {}
  // start() then run().
  void count();
  // Starts the backend (and the command).
  void start();
  // Reads and reports until the run's end (the interval count, the duration, the command's exit, or
  // a signal: g_interrupted), then stops the backend.
  void run();
  // The last partial interval, or the totals; then the backend puts its registers back. Returns
  // the problems it had doing so.
  std::vector<std::string> finish();
  int child_status() const { return child_status_; }
  // The signal that ended the workload; 0 when it exited.
  int child_signal() const { return child_signal_; }
  // Whether the run's end stopped the command (end_stops_workload).
  bool stopped_workload() const { return stopped_workload_; }
  std::uint64_t elapsed_ns() const { return stop_time_ - t0_; }

 private:
  bool watch_once();  // a command bounds the run, or nothing does: time is only watched
  bool sleep_once();  // an interval or the duration ends next: sleep until then
  bool watching() const;
  bool reap_child();
  void catch_up_modelled_time();
  void stop_workload_at_end();
  void wait_for_next(std::uint64_t now);
  void follow_real_time(std::uint64_t now);
  void hold();
  std::uint64_t deadline() const;
  std::uint64_t next_poll() const;
  void poll(std::uint64_t now);
  void report(std::uint64_t now);
  void emit_interval(std::uint64_t now);
  void finish_rows(std::vector<Row>& rows) const;

  Run& run_;
  LoopOptions o_;
  Clock& clock_;
  Backend& backend_;
  Sink& sink_;
  std::uint64_t t0_ = 0, last_ = 0, last_read_ = 0, stop_time_ = 0, next_ = UINT64_MAX;
  std::uint64_t end_ = UINT64_MAX, poll_ns_ = UINT64_MAX, intervals_ = 0;
  std::uint64_t spawn_clock_ = 0, spawn_real_ = 0;  // the run's clock and CLOCK_MONOTONIC at the spawn
  pid_t child_ = 0;
  int child_status_ = 0;
  int child_signal_ = 0;
  bool child_done_ = true;
  bool stopped_workload_ = false;
  bool follow_real_time_ = false;                             // virtual time, and nothing but a signal ends the run
  static constexpr std::uint64_t kFollowStepNs = 5'000'000;   // real time between two moves of it
  static constexpr std::uint64_t kFollowGrainNs = 1'000'000;  // it moves in whole milliseconds
  // Reused from interval to interval, so that a steady-state interval allocates nothing.
  std::vector<Row> read_;     // the latest read
  std::vector<Row> pending_;  // counts read since the last report (valid while have_pending_)
  bool have_pending_ = false;
  bool pending_reread_ = false;              // pending_'s rows are the last report's, reread
  std::optional<std::size_t> backend_rows_;  // how many rows each read gives, where always the same
  MetricScratch metrics_;                    // the interval's metric rows
};

}  // namespace pmukit::counting
