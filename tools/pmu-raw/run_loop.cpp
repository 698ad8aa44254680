// pmu-raw -- the run loop. Time comes from a Clock: CLOCK_MONOTONIC on hardware, pmu-sim's
// virtual clock on a simulated snapshot (so interval tests are exact and instant).
#include "run_loop.h"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"
#include "pmukit/util/rounding.h"

namespace pmukit::tools {

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

void RunLoop::count() {
  backend_.start();
  t0_ = last_ = last_read_ = clock_.now_ns();
  interval_ns_ = o_.interval_ms.value_or(0) * 1'000'000ull;
  // Rounded: 20.693146778 s is 20,693,146,778 ns, not one less (the double is a hair below).
  end_ = o_.duration_s ? t0_ + static_cast<std::uint64_t>(round_to_int64(*o_.duration_s * 1e9)) : UINT64_MAX;
  // Narrow direct counters (32-bit DesignWare lane counters have no overflow flag) are read at
  // least this often whatever the output asks for, so that none wraps twice unseen; the counts
  // since the last report pile up in pending_.
  poll_ns_ = backend_.max_read_period_ns();
  // Nothing ends the run but a signal: pmu-sim's virtual time goes along with real time, so a line
  // counted until Ctrl-C counts what it would on hardware.
  follow_real_time_ = o_.command.empty() && deadline() == UINT64_MAX && run_.time.virtual_time;
  hold();  // before the command starts: it may move the clock at once
  spawn_clock_ = t0_, spawn_real_ = monotonic_ns();
  child_ = o_.command.empty() ? 0 : spawn(o_.command);
  child_done_ = child_ == 0;
  for (;;) {
    if (g_interrupted.load() && child_done_) break;
    if (o_.interval_count && intervals_ >= *o_.interval_count) break;
    if (!(!child_done_ || deadline() == UINT64_MAX ? watch_once() : sleep_once())) break;
  }
  clock_.hold_at(UINT64_MAX);
  // A simulator has answered every request by then (one a signal cut short moves the clock still):
  // the time read next is the one the counters stop at.
  if (run_.time.settle) run_.time.settle->settle();
  stop_time_ = clock_.now_ns();
  backend_.stop();
}

// The clock is held at the run's next read or interval: under pmu-sim, a command that moves virtual
// time in one jump stops there until this loop has read (and turned a multiplexed unit).
void RunLoop::hold() {
  clock_.hold_at(std::min(deadline(), next_poll()));
}

std::uint64_t RunLoop::deadline() const {
  return interval_ns_ ? std::min(end_, t0_ + (intervals_ + 1) * interval_ns_) : end_;
}

std::uint64_t RunLoop::next_poll() const {
  return poll_ns_ > UINT64_MAX - last_read_ ? UINT64_MAX : last_read_ + poll_ns_;
}

bool RunLoop::reap_child() {
  int st = 0;
  if (::waitpid(child_, &st, WNOHANG) != child_) return false;
  child_done_ = true;
  child_status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  forward_sigterm_to(0);
  catch_up_modelled_time();
  return true;
}

// pmu-sim's virtual time stands still while a workload runs, unless the workload moves it itself
// (`pmu-sim advance`). When it did not move, the workload's real duration becomes modelled time, so
// `pmu-raw -e X -- sleep 2` counts two modelled seconds and prints perf's elapsed footer for them.
// The clock goes forward in the steps the run would have taken (narrow counters polled, intervals
// printed). A real clock (hardware, pmu-sim --realtime) has always moved: nothing to do.
void RunLoop::catch_up_modelled_time() {
  if (clock_.now_ns() != spawn_clock_) return;
  const std::uint64_t target = spawn_clock_ + (monotonic_ns() - spawn_real_);
  for (std::uint64_t now = clock_.now_ns(); now < target; now = clock_.now_ns()) {
    if (o_.interval_count && intervals_ >= *o_.interval_count) return;
    const std::uint64_t next = interval_ns_ ? std::min(deadline(), next_poll()) : next_poll();
    if (!clock_.sleep_until(std::min(target, next))) return;
    now = clock_.now_ns();
    if (interval_ns_ && now >= deadline())
      emit_interval(now);
    else if (now >= next_poll())
      poll(now);
  }
}

bool RunLoop::watch_once() {
  // In virtual mode the command itself may be what advances the time.
  if (!child_done_ && reap_child()) return false;
  if (child_done_ && g_interrupted.load()) return false;
  std::uint64_t now = clock_.now_ns();
  if (interval_ns_ && now >= deadline())
    emit_interval(now);
  else if (now >= next_poll())
    poll(now);
  else if (follow_real_time_)
    follow_real_time(now);
  else  // a watch never waits past the next read (a multiplexed unit rotates at reads)
    clock_.wait_until(next_poll(), child_done_ ? 20'000'000 : 1'000'000);
  return true;
}

// Virtual time moved to where real time is since the start, in whole milliseconds (so a run stops
// on the millisecond and a rate of whole counts per millisecond counts exactly), never past the
// next read; then a nap.
void RunLoop::follow_real_time(std::uint64_t now) {
  const std::uint64_t real = spawn_clock_ + (monotonic_ns() - spawn_real_) / kFollowGrainNs * kFollowGrainNs;
  if (real > now) {
    clock_.sleep_until(std::min(real, next_poll()));
    return;
  }
  nap_ns(kFollowStepNs);
}

bool RunLoop::sleep_once() {
  const std::uint64_t until = deadline(), wake = std::min(until, next_poll());
  bool reached = clock_.sleep_until(wake);
  std::uint64_t now = clock_.now_ns();
  if (reached && wake < until) {
    poll(now);
    return true;
  }
  // Stamped with the time of the read, as perf stat -I does: the counts cover exactly [last, now].
  // A sleep a signal cut short prints nothing here: report_end() prints that last, partial interval
  // up to where the counters stopped (printing it here too added a second one on a real clock).
  if (interval_ns_ && reached) emit_interval(now);
  return reached && until < end_;
}

// Into reused vectors: after the first interval a read allocates nothing.
void RunLoop::poll(std::uint64_t now) {
  // Either vector holds the backend's rows at its front once it has been read into (pending_ may
  // have duration_time rows after them): where the backend's rows are the same every read, only
  // their counts are written again.
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
    return;
  }
  for (std::size_t i = 0; i < read_.size(); ++i) add_read(pending_[i], read_[i]);
}

void RunLoop::finish_rows(std::vector<Row>& rows) const {
  for (auto& r : rows)
    if (auto it = run_.spec_scales.find(r.spec); it != run_.spec_scales.end())
      r.scale = it->second.scale, r.unit = it->second.unit;
}

void RunLoop::emit_interval(std::uint64_t now) {
  poll(now);
  add_duration_rows(run_.specs, now - last_, pending_);
  finish_rows(pending_);
  evaluate_metrics(run_.metrics, pending_, now - last_, run_.params, run_.per_socket, metrics_);
  reporter_.interval(static_cast<double>(now - t0_) / 1e9, pending_, metrics_.rows);
  have_pending_ = false;  // pending_ keeps its storage for the next interval
  last_ = now;
  ++intervals_;
  hold();
}

void RunLoop::report_totals(std::vector<Row>& totals) {
  std::string target =
      o_.command.empty() ? "'system wide'" : fmt::format("'system wide' while '{}' ran", o_.command[0]);
  finish_rows(totals);
  reporter_.totals(totals, evaluate_metrics(run_.metrics, totals, stop_time_ - t0_, run_.params, run_.per_socket),
                   target, backend_.notes(), static_cast<double>(stop_time_ - t0_) / 1e9);
  for (const auto& r : totals)
    if (r.lost)
      warn(fmt::format("{} on {}: a counter overflowed more than once between reads; its count is too low", r.event,
                       r.pmu));
}

std::vector<std::string> RunLoop::report_end() {
  if (interval_ns_) {
    // The last, partial interval (Ctrl-C, or the end of the command), unless --interval-count was met.
    const bool all_printed = o_.interval_count && intervals_ >= *o_.interval_count;
    if (stop_time_ > last_ && !all_printed) emit_interval(stop_time_);
    return backend_.finish();
  }
  poll(stop_time_);
  auto totals = std::move(pending_);
  have_pending_ = false;
  add_duration_rows(run_.specs, stop_time_ - t0_, totals);
  auto restore_errors = backend_.finish();
  report_totals(totals);
  return restore_errors;
}

}  // namespace pmukit::tools
