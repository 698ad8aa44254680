// pmu-raw -- the counting loop: intervals (-I), a fixed --duration or a command's lifetime, reading
// often enough that no narrow direct counter wraps twice unseen, and the final report.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/backend.h"
#include "common/counting_setup.h"
#include "common/metric_runner.h"
#include "counting.h"

namespace pmukit::tools {

// Everything a counting run needs, set up before the first register is written (it stays where it
// is for the whole run: rows name its strings by view), and what pmu-raw adds to it.
struct RunSetup : CountingSetup {
  std::map<std::string, double> params;  // --metric-param
  bool per_socket = false;
};

class RunLoop {
 public:
  RunLoop(const RawOptions& options, RunSetup& run, Reporter& reporter)
      : o_(options), run_(run), clock_(*run.time.clock), backend_(*run.backend), reporter_(reporter) {}
  // Starts the backend (and the command), counts until the run's end, stops the backend.
  void count();
  // The last partial interval, or the totals; then the backend puts its registers back. Returns
  // the problems it had doing so.
  std::vector<std::string> report_end();
  int child_status() const { return child_status_; }

 private:
  bool watch_once();  // a command bounds the run, or nothing does: time is only watched
  bool sleep_once();  // an interval or the duration ends next: sleep until then
  bool reap_child();
  void catch_up_modelled_time();
  void follow_real_time(std::uint64_t now);
  void hold();
  std::uint64_t deadline() const;
  std::uint64_t next_poll() const;
  void poll(std::uint64_t now);
  void emit_interval(std::uint64_t now);
  void finish_rows(std::vector<Row>& rows) const;
  void report_totals(std::vector<Row>& totals);

  const RawOptions& o_;
  RunSetup& run_;
  Clock& clock_;
  Backend& backend_;
  Reporter& reporter_;
  std::uint64_t t0_ = 0, last_ = 0, last_read_ = 0, stop_time_ = 0;
  std::uint64_t interval_ns_ = 0, end_ = UINT64_MAX, poll_ns_ = UINT64_MAX, intervals_ = 0;
  std::uint64_t spawn_clock_ = 0, spawn_real_ = 0;  // the run's clock and CLOCK_MONOTONIC at the spawn
  pid_t child_ = 0;
  int child_status_ = 0;
  bool child_done_ = true;
  bool follow_real_time_ = false;                             // virtual time, and nothing but a signal ends the run
  static constexpr std::uint64_t kFollowStepNs = 5'000'000;   // real time between two moves of it
  static constexpr std::uint64_t kFollowGrainNs = 1'000'000;  // it moves in whole milliseconds
  // Reused from interval to interval, so that a steady-state interval allocates nothing.
  std::vector<Row> read_;     // the latest read
  std::vector<Row> pending_;  // counts read since the last report (valid while have_pending_)
  bool have_pending_ = false;
  std::optional<std::size_t> backend_rows_;  // how many rows each read gives, where always the same
  MetricScratch metrics_;                    // the interval's metric rows
};

// The command counted over (after --): spawned with default signal dispositions.
pid_t spawn(const std::vector<std::string>& command);
// The child a SIGTERM to pmu-raw is passed on to (0: none).
void forward_sigterm_to(pid_t child);

}  // namespace pmukit::tools
