// pmu-raw -- the counting run: options to a counting::Run, the read loop, the report.
#include "counting.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "pmukit/counting/pmu_places.h"
#include "pmukit/counting/repeat_stats.h"
#include "pmukit/counting/workload.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/sim/clock.h"
#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/rounding.h"
#include "pmukit/util/signals.h"

namespace pmukit::tools {

// perf stat without a workload ends on Ctrl-C by the signal itself, once its counts are printed
// (builtin-stat.c sig_atexit re-raises it): the shell sees 130 for SIGINT, and a script can tell an
// interrupted run from one that ran its course. pmu-raw ends the same way, its registers restored.
void end_as_perf_does(const std::vector<std::string>& command) {
  const int sig = ending_signal();
  if (!command.empty() || (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)) return;
  std::fflush(nullptr);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

namespace {

// -v: each unit's counter as read, before the report, as perf stat -v prints each counter's value,
// enabled and running times ("msr/tsc/: 561491916 215963511 215963511"); a unit's PMU is named,
// as uncore events count on several.
void print_counters(const std::vector<Row>& rows) {
  for (const auto& r : rows)
    fmt::print(stderr, "{}: {}: {} {} {}\n", r.event, r.pmu, r.raw, r.enabled_ns, r.running_ns);
}

}  // namespace

// SIGPIPE too: `pmu-raw -I 1000 | head` must not die with counters programmed. The write then
// fails with EPIPE, and unwinding restores the registers (DirectSession's destructor).
void install_signals() {
  interrupt_on({SIGINT, SIGTERM, SIGHUP, SIGPIPE}, counting::forward_to_workload);
}

namespace {

// --metric-param NAME=VALUE arguments; UsageError for anything else.
std::map<std::string, double> parse_metric_params(const std::vector<std::string>& args) {
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

}  // namespace

// -o FILE, or stdout.
std::FILE* open_output(const RawOptions& o) {
  std::FILE* out = stdout;
  if (!o.output.empty() && !(out = std::fopen(o.output.c_str(), "w"))) throw_errno(o.output, errno);
  return out;
}

// Which backend counts each PMU, and why: in the header of perf's summary table, and on stderr
// wherever the output is intervals or for machines (CSV, JSON), so that it never mixes with counts.
void announce_backends(const RawOptions& o, const counting::Backend& backend) {
  if (o.report.interval || o.report.format != Format::Table)
    for (const auto& n : backend.notes()) fmt::print(stderr, "pmu-raw: {}\n", n);
}

namespace {

// -C LIST: the CPUs, sorted; UsageError for anything that is not a Linux CPU list.
std::vector<int> cpu_list(const std::string& text) {
  if (text.empty()) return {};
  auto cpus = parse_cpu_list(text);
  if (!cpus || cpus->empty())
    throw UsageError(fmt::format("-C '{}': expected a CPU list such as 0-3,8", text.substr(0, 40)));
  std::sort(cpus->begin(), cpus->end());
  cpus->erase(std::unique(cpus->begin(), cpus->end()), cpus->end());
  return *cpus;
}

std::string run_target(const std::vector<std::string>& command) {
  return command.empty() ? "'system wide'" : fmt::format("'system wide' while '{}' ran", command[0]);
}

}  // namespace

void note(const std::string& m) {
  fmt::print(stderr, "pmu-raw: {}\n", m);
}

// The exit status of a run that ended well, as perf stat's (builtin-stat.c returns the workload's
// WEXITSTATUS): the workload's exit status; 0 when a signal ended it (the timeout's SIGTERM, a
// Ctrl-C, a crash), which is said on stderr as perf says it ("sh: Terminated"). A workload that
// caught the timeout's signal exits with its own status.
int run_status(const counting::ReadLoop& loop, const std::vector<std::string>& command) {
  if (!loop.child_signal()) return loop.child_status();
  fmt::print(stderr, "{}: {}\n", command.empty() ? "workload" : command[0], ::strsignal(loop.child_signal()));
  return 0;
}

namespace {

// -r: each run's totals kept for the mean, nothing printed until the last.
class Repeats : public counting::Sink {
 public:
  Repeats(counting::RepeatedRuns& runs, bool verbose) : runs_(runs), verbose_(verbose) {}
  void interval(std::uint64_t, std::uint64_t, const std::vector<Row>&, const std::vector<MetricRow>&) override {}
  void totals(std::uint64_t elapsed_ns, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics) override {
    if (verbose_) print_counters(rows);
    runs_.add(rows, metrics, elapsed_ns);
  }

 private:
  counting::RepeatedRuns& runs_;
  bool verbose_;
};

}  // namespace

counting::Request counting_request(const RawOptions& o) {
  counting::Request r;
  r.events = o.events;
  r.metrics = o.metrics;
  r.event_files = o.event_files;
  r.backend.mode = counting::backend_mode(o.backend).value_or(counting::BackendMode::Auto);
  r.backend.force = o.force;
  // --per-die and --per-node place rows by their socket (and PMU): the perf backend splits its
  // counts per socket for them too.
  const auto a = o.report.aggregation;
  r.backend.per_socket = a == Aggregation::PerSocket || a == Aggregation::PerDie || a == Aggregation::PerNode;
  r.backend.per_cpu = a == Aggregation::PerCpu;  // -A: a row per CPU counted on
  r.backend.interval_ms = o.interval_ms.value_or(0);
  r.backend.mux_interval_ms = o.mux_interval_ms;
  if (o.report.aggregation == Aggregation::PerDevice) r.iio_scope = counting::IioScope::Device;
  if (o.report.aggregation == Aggregation::PerStack) r.iio_scope = counting::IioScope::Stack;
  r.cpus = r.backend.cpus = cpu_list(o.cpu_list);
  return r;
}

counting::LoopOptions loop_options(const RawOptions& o) {
  counting::LoopOptions l;
  l.interval_ns = o.interval_ms.value_or(0) * 1'000'000ull;
  l.interval_count = o.interval_count;
  // Rounded: 20.693146778 s is 20,693,146,778 ns, not one less (the double is a hair below).
  if (o.duration_s) l.duration_ns = static_cast<std::uint64_t>(round_to_int64(*o.duration_s * 1e9));
  if (o.timeout_ms) {
    l.duration_ns = *o.timeout_ms * 1'000'000ull;
    l.end_stops_workload = true;
  }
  l.command = o.command;
  return l;
}

void Printer::interval(std::uint64_t since_start_ns, std::uint64_t, const std::vector<Row>& rows,
                       const std::vector<MetricRow>& metrics) {
  if (verbose_) print_counters(rows);
  reporter_.interval(static_cast<double>(since_start_ns) / 1e9, rows, metrics, rows_as_before);
}

void Printer::totals(std::uint64_t elapsed_ns, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics) {
  if (verbose_) print_counters(rows);
  reporter_.totals(rows, metrics, run_target(command_), run_.backend->notes(), static_cast<double>(elapsed_ns) / 1e9);
  for (const auto& r : rows)
    if (r.lost)
      warn(fmt::format("{} on {}: a counter overflowed more than once between reads; its count is too low", r.event,
                       r.pmu));
}

int run_recover(const MachineArgs& machine_args, bool take_over) {
  install_signals();  // a restore is not cut short by a signal; the flag only ends waits that may end
  auto machine = make_machine(machine_args);
  const auto none = fmt::format("nothing to recover (no journal in {})", machine->param("units.path").string());
  // No journal, nothing to do: said without the lock, which a read-only snapshot cannot hold.
  if (!pmu::journal_exists(*machine)) {
    fmt::print(stderr, "pmu-raw: {}\n", none);
    return 0;
  }
  machine->check_no_links(machine->param("sim.path") / "clock");  // mapped read-write by name
  auto time = sim::machine_clock(*machine);
  auto found = families::discover(*machine);
  auto r = pmu::recover_all(*machine, found.inventory, platform::Database::builtin(), time.settle,
                            take_over ? pmu::WriterDoubt::TakeOver : pmu::WriterDoubt::Refuse);
  for (const auto& done : r.recovered) fmt::print(stderr, "pmu-raw: {}\n", done.message());
  for (const auto& why : r.left) fmt::print(stderr, "pmu-raw: {}\n", why);
  if (r.recovered.empty() && r.left.empty()) fmt::print(stderr, "pmu-raw: {}\n", none);
  return 0;
}

int run_discard_journal(const MachineArgs& machine_args) {
  auto machine = make_machine(machine_args);
  auto d = pmu::discard_journals(*machine);
  if (d.aside.empty() && d.left.empty())
    fmt::print(stderr, "pmu-raw: no journal to discard (none in {})\n", machine->param("units.path").string());
  for (const auto& [journal, aside] : d.aside)
    fmt::print(stderr, "pmu-raw: {} set aside as {}: the registers it lists were not restored\n", journal.string(),
               aside.string());
  for (const auto& why : d.left) fmt::print(stderr, "pmu-raw: {}\n", why);
  return 0;
}

// -r N: the run made N times, each anew (perf stat opens its events anew for each run), and one
// report of the means and spreads. A signal ends the repetition after the run it cut short, whose
// counts are in the means. The exit status is the last run's.
int run_repeated(RawOptions& o, Machine& machine, const counting::Request& request) {
  std::FILE* out = open_output(o);
  o.report.out = out;
  std::optional<counting::RepeatedRuns> runs;
  std::vector<std::string> notes;
  int status = 0;
  for (std::uint64_t i = 0; i < o.repeat && !(i && ending_signal()); ++i) {
    counting::Run run(machine, request, note);
    if (!runs) {
      for (const auto& w : run.warnings) fmt::print(stderr, "pmu-raw: warning: {}\n", w);
      o.report.places = counting::pmu_places(run.found.inventory, run.found.topology);
      o.report.metric_inputs = counting::metric_inputs(run.metrics, run.asked_events);
      runs.emplace(Reporter(o.report).row_groups());
      announce_backends(o, *run.backend);
    }
    Repeats sink(*runs, o.verbose);
    counting::ReadLoop loop(run, loop_options(o), sink);
    loop.count();
    auto restore_errors = loop.finish();
    for (const auto& e : restore_errors) fmt::print(stderr, "pmu-raw: error: {}\n", e);
    if (!restore_errors.empty()) return 1;
    notes = run.backend->notes();
    status = run_status(loop, o.command);
  }
  Reporter reporter(o.report);
  reporter.set_repeat(runs->runs(), runs->spread_pct(), runs->elapsed().stddev_of_mean(),
                      runs->elapsed().relative_pct());
  reporter.totals(runs->mean_rows(), runs->mean_metrics(), run_target(o.command), notes, runs->elapsed().mean());
  if (out != stdout && std::fclose(out) != 0) throw_errno(o.output, errno ? errno : EIO);
  end_as_perf_does(o.command);
  return status;
}

int run_counting(RawOptions& o) {
  if (o.events.empty() && o.metrics.empty()) throw UsageError("no events: give at least one -e EVENT or -M METRIC");
  // Before any register is programmed: a signal from then on ends the run through the restoring
  // path (the loop sees the flag at once), never with the counters left running.
  counting::check_workload(o.command);
  install_signals();
  auto request = counting_request(o);
  request.metric_params = parse_metric_params(o.metric_params);  // a usage error before any work
  auto machine = make_machine(o.machine);
  if (o.repeat > 1) return run_repeated(o, *machine, request);
  // After the machine: the session the run holds restores through the machine's files.
  counting::Run run(*machine, request, note);
  for (const auto& w : run.warnings) fmt::print(stderr, "pmu-raw: warning: {}\n", w);
  o.report.places = counting::pmu_places(run.found.inventory, run.found.topology);
  o.report.metric_inputs = counting::metric_inputs(run.metrics, run.asked_events);
  std::FILE* out = open_output(o);
  o.report.out = out;
  o.report.interval = o.interval_ms.has_value();
  Reporter reporter(o.report);
  announce_backends(o, *run.backend);
  Printer printer(reporter, run, o.command, o.verbose);
  counting::ReadLoop loop(run, loop_options(o), printer);
  loop.count();
  auto restore_errors = loop.finish();
  const int close_err = out != stdout && std::fclose(out) != 0 ? (errno ? errno : EIO) : 0;
  for (const auto& e : restore_errors) fmt::print(stderr, "pmu-raw: error: {}\n", e);
  if (close_err) throw_errno(o.output, close_err);  // the counts did not all reach the file
  if (!restore_errors.empty()) return 1;
  end_as_perf_does(o.command);
  return run_status(loop, o.command);
}

}  // namespace pmukit::tools
