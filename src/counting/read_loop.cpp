// pmukit -- the read loop. Time comes from a Clock: CLOCK_MONOTONIC on hardware, pmu-sim's
// virtual clock on a simulated snapshot (so interval tests are exact and instant).
#include "pmukit/counting/read_loop.h"

#include <signal.h>

#include <algorithm>

#include "pmukit/counting/workload.h"
#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"

namespace pmukit::counting {

namespace {

// Rows for duration_time: perf's software event holding the elapsed nanoseconds.
void add_duration_rows(const std::vector<syntax::EventSpec>& specs, std::uint64_t window_ns, std::vector<Row>& rows) {
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (is_duration_time(specs[i])) {
      Row r;
      r.spec = i;
      r.event = specs[i].name.empty() ? std::string_view("duration_time") : std::string_view(specs[i].name);
      r.pmu = "duration_time";
      r.count = r.raw = window_ns;
      r.unit = "ns";
      r.enabled_ns = r.running_ns = window_ns;
      r.backend = "clock";
      rows.push_back(r);
    }
}

}  // namespace

void ReadLoop::count() {
  start();
  run();
}

void ReadLoop::start() {
  backend_.start();
  t0_ = last_ = last_read_ = clock_.now_ns();
  next_ = o_.interval_ns ? t0_ + o_.interval_ns : UINT64_MAX;
  end_ = o_.duration_ns ? t0_ + *o_.duration_ns : UINT64_MAX;
  // Narrow direct counters (32-bit DesignWare lane counters have no overflow flag) are read at
  // least this often whatever the output asks for, so that none wraps twice unseen; the counts
  // since the last report pile up in pending_.
  poll_ns_ = backend_.max_read_period_ns();
  // Nothing ends the run but a signal: pmu-sim's virtual time goes along with real time, so a line
  // counted until Ctrl-C counts what it would on hardware.
  follow_real_time_ =
      o_.command.empty() && deadline() == UINT64_MAX && run_.time.virtual_time && !o_.watch_virtual_time;
  hold();  // before the command starts: it may move the clock at once
  spawn_clock_ = t0_, spawn_real_ = monotonic_ns();
  child_ = o_.command.empty() ? 0 : spawn_workload(o_.command);
  child_done_ = child_ == 0;
  if (o_.report_at_start) report(t0_);
}

void ReadLoop::run() {
  for (;;) {
    if (g_interrupted.load() && child_done_) break;
    if (o_.interval_count && intervals_ >= *o_.interval_count) break;
    if (!(watching() ? watch_once() : sleep_once())) break;
  }
  clock_.hold_at(UINT64_MAX);
  // A simulator has answered every request by then (one a signal cut short moves the clock still):
  // the time read next is the one the counters stop at.
  if (run_.time.settle) run_.time.settle->settle();
  stop_time_ = clock_.now_ns();
  backend_.stop();
}

bool ReadLoop::watching() const {
  return !child_done_ || deadline() == UINT64_MAX || (o_.watch_virtual_time && run_.time.virtual_time);
}

// The clock is held at the run's next read or interval: under pmu-sim, a command that moves virtual
// time in one jump stops there until this loop has read (and turned a multiplexed unit). A loop that
// only watches virtual time holds nothing: whoever moves it sets the pace.
void ReadLoop::hold() {
  if (!o_.watch_virtual_time) clock_.hold_at(std::min(deadline(), next_poll()));
}

std::uint64_t ReadLoop::deadline() const {
  return o_.interval_ns ? std::min(end_, next_) : end_;
}

std::uint64_t ReadLoop::next_poll() const {
  return poll_ns_ > UINT64_MAX - last_read_ ? UINT64_MAX : last_read_ + poll_ns_;
}

bool ReadLoop::reap_child() {
  if (!reap_workload(child_, child_status_, &child_signal_)) return false;
  child_done_ = true;
  catch_up_modelled_time();
  return true;
}

// pmu-sim's virtual time stands still while a workload runs, unless the workload moves it itself
// (`pmu-sim advance`). When it did not move, the workload's real duration becomes modelled time, so
// `pmu-raw -e X -- sleep 2` counts two modelled seconds and prints perf's elapsed footer for them.
// The clock goes forward in the steps the run would have taken (narrow counters polled, intervals
// printed). A real clock (hardware, pmu-sim --realtime) has always moved: nothing to do.
void ReadLoop::catch_up_modelled_time() {
  if (clock_.now_ns() != spawn_clock_) return;
  const std::uint64_t target = spawn_clock_ + (monotonic_ns() - spawn_real_);
  for (std::uint64_t now = clock_.now_ns(); now < target; now = clock_.now_ns()) {
    if (o_.interval_count && intervals_ >= *o_.interval_count) return;
    const std::uint64_t next = o_.interval_ns ? std::min(deadline(), next_poll()) : next_poll();
    if (!clock_.sleep_until(std::min(target, next))) return;
    now = clock_.now_ns();
    if (o_.interval_ns && now >= deadline())
      emit_interval(now);
    else if (now >= next_poll())
      poll(now);
  }
}

// perf stat --timeout: the command is sent SIGTERM once the run's duration has passed in real time
// since it started (pmu-sim's virtual time stands still while a command runs; it catches up with
// the command's real duration when it is reaped). The loop goes on until the command has ended.
void ReadLoop::stop_workload_at_end() {
  if (stopped_workload_ || !o_.end_stops_workload || !o_.duration_ns) return;
  if (monotonic_ns() - spawn_real_ < *o_.duration_ns) return;
  ::kill(child_, SIGTERM);
  stopped_workload_ = true;
}

// Until the next read or report, napping a millisecond at a time while a command runs. A run whose
// end has passed while its command still runs waits for the command (a nap, not a spin: the end is
// then behind it).
void ReadLoop::wait_for_next(std::uint64_t now) {
  const std::uint64_t nap = child_done_ ? o_.watch_nap_ns : 1'000'000;
  const std::uint64_t next = std::min(deadline(), next_poll());
  clock_.wait_until(next > now ? next : now + nap, nap);
}

bool ReadLoop::watch_once() {
  // In virtual mode the command itself may be what advances the time.
  if (!child_done_ && reap_child()) return false;
  if (!child_done_) stop_workload_at_end();
  if (child_done_ && g_interrupted.load()) return false;
  std::uint64_t now = clock_.now_ns();
  if (o_.interval_ns && now >= deadline())
    emit_interval(now);
  else if (now >= next_poll())
    poll(now);
  else if (follow_real_time_)
    follow_real_time(now);
  else  // a watch never waits past the next read (a multiplexed unit rotates at reads)
    wait_for_next(now);
  return true;
}

// Virtual time moved to where real time is since the start, in whole milliseconds (so a run stops
// on the millisecond and a rate of whole counts per millisecond counts exactly), never past the
// next read; then a nap.
void ReadLoop::follow_real_time(std::uint64_t now) {
  const std::uint64_t real = spawn_clock_ + (monotonic_ns() - spawn_real_) / kFollowGrainNs * kFollowGrainNs;
  if (real > now) {
    clock_.sleep_until(std::min(real, next_poll()));
    return;
  }
  nap_ns(kFollowStepNs);
}

bool ReadLoop::sleep_once() {
  const std::uint64_t until = deadline(), wake = std::min(until, next_poll());
  bool reached = clock_.sleep_until(wake);
  std::uint64_t now = clock_.now_ns();
  if (reached && wake < until) {
    poll(now);
    return true;
  }
  // Stamped with the time of the read, as perf stat -I does: the counts cover exactly [last, now].
  // A sleep a signal cut short reports nothing here: finish() reports that last, partial interval
  // up to where the counters stopped (reporting it here too added a second one on a real clock).
  if (o_.interval_ns && reached) emit_interval(now);
  return reached && until < end_;
}

// Into reused vectors: after the first interval a read allocates nothing.
void ReadLoop::poll(std::uint64_t now) {
  // Either vector holds the backend's rows at its front once it has been read into (pending_ may
  // have duration_time rows after them): where the backend's rows are the same every read, only
  // their counts are written again.
  if (backend_rows_ && !have_pending_ && pending_.size() >= *backend_rows_) {
    // The first read since the last report: straight into pending_, which holds the same rows (one
    // vector of rows touched every interval rather than two in turn).
    pending_.resize(*backend_rows_);
    std::size_t at = 0;
    backend_.reread(now - last_read_, pending_, at);
    last_read_ = now;
    hold();
    have_pending_ = pending_reread_ = true;
    return;
  }
  if (backend_rows_ && read_.size() >= *backend_rows_) {
    read_.resize(*backend_rows_);
    std::size_t at = 0;
    backend_.reread(now - last_read_, read_, at);
  } else {
    read_.clear();
    backend_.read(now - last_read_, read_);
    if (backend_.rereads()) backend_rows_ = read_.size();
  }
  last_read_ = now;
  hold();
  if (!have_pending_) {
    pending_.swap(read_);  // no copy; each keeps its storage
    have_pending_ = true;
    pending_reread_ = false;
    return;
  }
  for (std::size_t i = 0; i < read_.size(); ++i) add_read(pending_[i], read_[i]);
}

void ReadLoop::finish_rows(std::vector<Row>& rows) const {
  for (auto& r : rows)
    if (auto it = run_.spec_scales.find(r.spec); it != run_.spec_scales.end())
      r.scale = it->second.scale, r.unit = it->second.unit;
}

// The counts since the last report, and the metrics over them, to the sink.
void ReadLoop::report(std::uint64_t now) {
  poll(now);
  add_duration_rows(run_.specs, now - last_, pending_);
  finish_rows(pending_);
  if (o_.evaluate_metrics)
    evaluate_metrics(run_.metrics, pending_, now - last_, run_.params, run_.per_socket, metrics_);
  sink_.rows_as_before = pending_reread_;
  sink_.interval(now - t0_, now - last_, pending_, metrics_.rows);
  have_pending_ = false;  // pending_ keeps its storage for the next interval
  last_ = now;
}

void ReadLoop::emit_interval(std::uint64_t now) {
  report(now);
  ++intervals_;
  next_ += o_.interval_ns;
  if (o_.skip_missed_intervals && next_ <= now) next_ = now + o_.interval_ns;  // after a jump, one report
  hold();
}

std::vector<std::string> ReadLoop::finish() {
  if (o_.interval_ns) {
    // The last, partial interval (Ctrl-C, or the end of the command), unless --interval-count was met.
    const bool all_printed = o_.interval_count && intervals_ >= *o_.interval_count;
    if (o_.partial_last_interval && stop_time_ > last_ && !all_printed) emit_interval(stop_time_);
    return backend_.finish();
  }
  poll(stop_time_);
  auto totals = std::move(pending_);
  have_pending_ = false;
  add_duration_rows(run_.specs, stop_time_ - t0_, totals);
  auto restore_errors = backend_.finish();
  finish_rows(totals);
  std::vector<MetricRow> metrics;
  if (o_.evaluate_metrics)
    metrics = evaluate_metrics(run_.metrics, totals, stop_time_ - t0_, run_.params, run_.per_socket);
  sink_.totals(stop_time_ - t0_, totals, metrics);
  return restore_errors;
}

}  // namespace pmukit::counting
