// pmu-raw -- the run loop. Time comes from sim::Clock: CLOCK_MONOTONIC on hardware, pmu-sim's
// virtual clock on a simulated snapshot (so interval tests are exact and instant).
#include "counting.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "backend_choice.h"
#include "event_file.h"
#include "metric_runner.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/sim/clock.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

extern char** environ;

namespace pmukit::tools {

namespace {

std::atomic<pid_t> g_child{0};

void on_signal(int sig) {
  sim::g_interrupted.store(true);
  // A SIGTERM aimed at pmu-raw alone reaches the command too (a terminal's SIGINT already did).
  if (pid_t c = g_child.load(); c > 0 && sig == SIGTERM) ::kill(c, SIGTERM);
}

void install_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;  // no SA_RESTART: a blocked wait returns EINTR and sees the flag
  // SIGPIPE too: `pmu-raw -I 1000 | head` must not die with counters programmed. The write then
  // fails with EPIPE, and unwinding restores the registers (DirectSession's destructor).
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::sigaction(s, &sa, nullptr);
}

bool is_duration_time(const events::EventSpec& s) {
  return s.pmu.empty() && s.terms.size() == 1 && s.terms[0].key == "duration_time";
}

pid_t spawn(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw Error(fmt::format("cannot run '{}': {}", command[0], errno_text(rc)));
  g_child.store(pid);
  return pid;
}

// Rows for duration_time: perf's software event holding the elapsed nanoseconds.
void add_duration_rows(const std::vector<events::EventSpec>& specs, std::uint64_t window_ns, std::vector<Row>& rows) {
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (is_duration_time(specs[i])) {
      Row r;
      r.spec = i;
      r.event = specs[i].name.empty() ? std::string_view("duration_time") : std::string_view(specs[i].name);
      r.pmu = "duration_time";
      r.count = window_ns;
      r.unit = "ns";
      r.enabled_ns = r.running_ns = window_ns;
      r.backend = "clock";
      rows.push_back(r);
    }
}

std::map<std::string, double> parse_params(const std::vector<std::string>& args) {
  std::map<std::string, double> params;
  for (const auto& a : args) {
    auto eq = a.find('=');
    try {
      if (eq == std::string::npos || eq == 0) throw std::invalid_argument(a);
      double v = std::stod(a.substr(eq + 1));
      if (!std::isfinite(v)) throw std::invalid_argument(a);
      params[a.substr(0, eq)] = v;
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--metric-param '{}': expected NAME=NUMBER", a));
    }
  }
  return params;
}

// Every PMU name events can be counted on here: discovered units and the kernel's perf PMUs, and
// the merged name of each numbered family ("uncore_imc" for uncore_imc_0..7), as perf merges them.
std::vector<std::string> pmu_names(const Machine& machine, const discovery::Inventory& inventory) {
  std::vector<std::string> names;
  for (const auto& u : inventory.units) names.push_back(u.name);
  for (auto& p : perf::pmu_names(machine)) names.push_back(std::move(p));  // names only: one bad PMU stops nothing
  std::map<std::string, std::size_t> numbered;
  for (const auto& n : names)
    if (auto family = numbered_family(n)) ++numbered[std::string(*family)];
  for (const auto& [prefix, count] : numbered)
    if (count > 1) names.push_back(prefix);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

int list_metric_catalog(const MachineArgs& machine_args, bool all) {
  auto machine = make_machine(machine_args);
  auto found = discovery::discover(*machine);
  return list_metrics(metrics::Catalog::embedded(), pmu_names(*machine, found.inventory), all);
}

int run_counting(RawOptions& o) {
  if (o.events.empty() && o.metrics.empty()) throw UsageError("no events: give at least one -e EVENT or -M METRIC");
  // Before any register is programmed: a signal from then on ends the run through the restoring
  // path (the loop sees the flag at once), never with the counters left running.
  install_signals();
  const auto params = parse_params(o.metric_params);  // a usage error before any work
  auto machine = make_machine(o.machine);
  std::vector<events::EventSpec> specs;
  for (const auto& e : o.events) {
    auto parsed = events::parse_event_list(e);
    for (auto& p : parsed) specs.push_back(std::move(p));
  }
  std::vector<events::PerfmonEvents> event_files;
  for (const auto& f : o.event_files) event_files.push_back(events::PerfmonEvents::load(f));
  auto spec_scales = apply_event_files(event_files, specs);
  machine->check_no_links(machine->param("sim.path") / "clock");  // mapped read-write by name
  auto clock = sim::machine_clock(*machine);
  auto found = discovery::discover(*machine);
  const auto catalog = o.metrics.empty() ? metrics::Catalog{} : metrics::Catalog::embedded();
  auto metric_instances = add_metric_events(catalog, o.metrics, pmu_names(*machine, found.inventory), specs);
  const bool per_socket = o.report.aggregation == Aggregation::PerSocket;
  auto finish_rows = [&](std::vector<Row>& rows) {
    for (auto& r : rows)
      if (auto it = spec_scales.find(r.spec); it != spec_scales.end())
        r.scale = it->second.scale, r.unit = it->second.unit;
  };
  if (std::all_of(specs.begin(), specs.end(), is_duration_time))
    throw UsageError("only duration_time given: add an event");
  BackendRequest request{o.backend, o.force, o.report.aggregation == Aggregation::PerSocket, o.interval_ms.value_or(0)};
  std::unique_ptr<Backend> backend = make_backend(*machine, specs, found, request, *clock, is_duration_time);

  std::FILE* out = stdout;
  if (!o.output.empty() && !(out = std::fopen(o.output.c_str(), "w"))) throw_errno(o.output, errno);
  o.report.out = out;
  o.report.interval = o.interval_ms.has_value();
  Reporter reporter(o.report);
  // Which backend counts each PMU, and why: in the header of perf's summary table, and on stderr
  // wherever the output is intervals or for machines (CSV, JSON), so that it never mixes with counts.
  if (o.report.interval || o.report.format != Format::Table)
    for (const auto& n : backend->notes()) fmt::print(stderr, "pmu-raw: {}\n", n);

  backend->start();
  const std::uint64_t t0 = clock->now_ns();
  std::uint64_t last = t0;       // the previous report (interval) -- or the start
  std::uint64_t last_read = t0;  // the previous backend read: reports, and polls between them
  pid_t child = o.command.empty() ? 0 : spawn(o.command);
  int child_status = 0;
  bool child_done = child == 0;
  const std::uint64_t interval_ns = o.interval_ms.value_or(0) * 1'000'000ull;
  const std::uint64_t end = o.duration_s ? t0 + static_cast<std::uint64_t>(*o.duration_s * 1e9) : UINT64_MAX;
  std::uint64_t intervals = 0;
  // Narrow direct counters (32-bit DesignWare lane counters have no overflow flag) are read at
  // least this often whatever the output asks for, so that none wraps twice unseen; the counts
  // since the last report pile up in `pending`.
  const std::uint64_t poll_ns = backend->max_read_period_ns();
  auto next_poll = [&] { return poll_ns > UINT64_MAX - last_read ? UINT64_MAX : last_read + poll_ns; };
  std::vector<Row> pending;
  auto poll = [&](std::uint64_t now) {
    auto rows = backend->read(now - last_read);
    last_read = now;
    if (pending.empty()) {
      pending = std::move(rows);
      return;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      pending[i].count += rows[i].count;
      pending[i].enabled_ns += rows[i].enabled_ns;
      pending[i].running_ns += rows[i].running_ns;
      pending[i].lost = pending[i].lost || rows[i].lost;
    }
  };
  auto emit_interval = [&](std::uint64_t now) {
    poll(now);
    auto rows = std::move(pending);
    pending.clear();
    add_duration_rows(specs, now - last, rows);
    finish_rows(rows);
    reporter.interval(static_cast<double>(now - t0) / 1e9, rows,
                      evaluate_metrics(metric_instances, rows, now - last, params, per_socket));
    last = now;
    ++intervals;
  };

  for (;;) {
    if (sim::g_interrupted.load() && child_done) break;
    if (o.interval_count && intervals >= *o.interval_count) break;
    std::uint64_t deadline = interval_ns ? std::min(end, t0 + (intervals + 1) * interval_ns) : end;
    if (!child_done || deadline == UINT64_MAX) {
      // A command decides how long we count, or nothing does (count until interrupted): time is
      // only watched (in virtual mode the command itself may be what advances it).
      if (!child_done) {
        int st = 0;
        pid_t r = ::waitpid(child, &st, WNOHANG);
        if (r == child) {
          child_done = true;
          child_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
          g_child.store(0);
          break;
        }
      } else if (sim::g_interrupted.load()) {
        break;
      }
      std::uint64_t now = clock->now_ns();
      if (interval_ns && now >= deadline)
        emit_interval(now);
      else if (now >= next_poll())
        poll(now);
      else
        sim::nap_ns(child_done ? 20'000'000 : 1'000'000);
      continue;
    }
    const std::uint64_t wake = std::min(deadline, next_poll());
    bool reached = clock->sleep_until(wake);
    std::uint64_t now = clock->now_ns();
    if (reached && wake < deadline) {
      poll(now);
      continue;
    }
    // Stamped with the time of the read, as perf stat -I does: the counts cover exactly [last, now].
    if (interval_ns && (reached || now > last)) emit_interval(now);
    if (!reached || deadline >= end) break;
  }
  const std::uint64_t stop_time = clock->now_ns();
  backend->stop();
  std::vector<Row> totals;
  if (interval_ns) {
    if (stop_time > last && !o.interval_count) emit_interval(stop_time);  // the last, partial interval
  } else {
    poll(stop_time);
    totals = std::move(pending);
    add_duration_rows(specs, stop_time - t0, totals);
  }
  auto restore_errors = backend->finish();
  if (!interval_ns) {
    std::string target =
        o.command.empty() ? "'system wide'" : fmt::format("'system wide' while '{}' ran", o.command[0]);
    finish_rows(totals);
    reporter.totals(totals, evaluate_metrics(metric_instances, totals, stop_time - t0, params, per_socket), target,
                    backend->notes(), static_cast<double>(stop_time - t0) / 1e9);
  }
  const int close_err = out != stdout && std::fclose(out) != 0 ? (errno ? errno : EIO) : 0;
  for (const auto& r : totals)
    if (r.lost)
      warn(fmt::format("{} on {}: a counter overflowed more than once between reads; its count is too low", r.event,
                       r.pmu));
  for (const auto& e : restore_errors) fmt::print(stderr, "pmu-raw: error: {}\n", e);
  if (close_err) throw_errno(o.output, close_err);  // the counts did not all reach the file
  if (!restore_errors.empty()) return 1;
  return child_status;
}

}  // namespace pmukit::tools
