// pmu-raw -- the counting run: options to a set-up run, the run loop, the report.
#include "counting.h"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "backend_choice.h"
#include "event_file.h"
#include "metric_runner.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"
#include "run_loop.h"

extern char** environ;

namespace pmukit::tools {

namespace {

std::atomic<pid_t> g_child{0};

void on_signal(int sig) {
  g_interrupted.store(true);
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

bool is_duration_time(const syntax::EventSpec& s) {
  return s.pmu.empty() && s.terms.size() == 1 && s.terms[0].key == "duration_time";
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
  for (const auto& u : inventory.units) {
    names.push_back(u.name);
    for (const auto& a : u.aliases) names.push_back(a.name);  // pcie_bdf_200: -e and -M take either name
  }
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

// The events, metrics, clock and backend of a run, before anything is written.
void set_up(RawOptions& o, Machine& machine, RunSetup& run) {
  for (const auto& e : o.events)
    for (auto& p : syntax::parse_event_list(e)) run.specs.push_back(std::move(p));
  std::vector<events::PerfmonEvents> event_files;
  for (const auto& f : o.event_files) event_files.push_back(events::PerfmonEvents::load(f));
  run.spec_scales = apply_event_files(event_files, run.specs);
  machine.check_no_links(machine.param("sim.path") / "clock");  // mapped read-write by name
  run.time = sim::machine_clock(machine);
  run.found = discovery::discover(machine);
  if (!o.metrics.empty()) run.catalog = metrics::Catalog::embedded();
  run.metrics = add_metric_events(run.catalog, o.metrics, pmu_names(machine, run.found.inventory), run.specs);
  run.per_socket = o.report.aggregation == Aggregation::PerSocket;
  if (std::all_of(run.specs.begin(), run.specs.end(), is_duration_time))
    throw UsageError("only duration_time given: add an event");
  BackendRequest request{o.backend, o.force, run.per_socket, o.interval_ms.value_or(0)};
  run.backend = make_backend(machine, run.specs, run.found, request, run.time, is_duration_time);
}

// -o FILE, or stdout.
std::FILE* open_output(const RawOptions& o) {
  std::FILE* out = stdout;
  if (!o.output.empty() && !(out = std::fopen(o.output.c_str(), "w"))) throw_errno(o.output, errno);
  return out;
}

// Which backend counts each PMU, and why: in the header of perf's summary table, and on stderr
// wherever the output is intervals or for machines (CSV, JSON), so that it never mixes with counts.
void announce_backends(const RawOptions& o, const Backend& backend) {
  if (o.report.interval || o.report.format != Format::Table)
    for (const auto& n : backend.notes()) fmt::print(stderr, "pmu-raw: {}\n", n);
}

// An executable regular file (what execve accepts; a directory is EACCES there).
int executable_error(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno;
  if (!S_ISREG(st.st_mode)) return EACCES;
  return ::access(path.c_str(), X_OK) == 0 ? 0 : errno;
}

// The workload is looked up as posix_spawnp will (a name with a slash as it is, any other along
// PATH) before anything is programmed: a run that cannot start counts nothing, as perf stat, which
// says so before it opens its events.
void check_workload(const std::vector<std::string>& command) {
  if (command.empty()) return;
  const std::string& name = command[0];
  if (name.find('/') != std::string::npos) {
    if (int err = executable_error(name))
      throw Error(fmt::format("cannot run the workload '{}': {}; nothing was counted", name, errno_text(err)));
    return;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    std::size_t colon = std::min(dirs.find(':', at), dirs.size());
    std::string dir = dirs.substr(at, colon - at);
    if (executable_error((dir.empty() ? "." : dir) + "/" + name) == 0) return;
    at = colon + 1;
  }
  throw Error(fmt::format("cannot run the workload '{}': no such command in PATH; nothing was counted", name));
}

}  // namespace

void forward_sigterm_to(pid_t child) {
  g_child.store(child);
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
  forward_sigterm_to(pid);
  return pid;
}

int list_metric_catalog(const MachineArgs& machine_args, bool all, bool names_only) {
  auto machine = make_machine(machine_args);
  auto found = discovery::discover(*machine);
  return list_metrics(metrics::Catalog::embedded(), pmu_names(*machine, found.inventory), all, names_only);
}

int run_counting(RawOptions& o) {
  if (o.events.empty() && o.metrics.empty()) throw UsageError("no events: give at least one -e EVENT or -M METRIC");
  // Before any register is programmed: a signal from then on ends the run through the restoring
  // path (the loop sees the flag at once), never with the counters left running.
  check_workload(o.command);
  install_signals();
  auto params = parse_params(o.metric_params);  // a usage error before any work
  auto machine = make_machine(o.machine);
  RunSetup run;  // after the machine: the session it holds restores through the machine's files
  run.params = std::move(params);
  set_up(o, *machine, run);
  std::FILE* out = open_output(o);
  o.report.out = out;
  o.report.interval = o.interval_ms.has_value();
  Reporter reporter(o.report);
  announce_backends(o, *run.backend);
  RunLoop loop(o, run, reporter);
  loop.count();
  auto restore_errors = loop.report_end();
  const int close_err = out != stdout && std::fclose(out) != 0 ? (errno ? errno : EIO) : 0;
  for (const auto& e : restore_errors) fmt::print(stderr, "pmu-raw: error: {}\n", e);
  if (close_err) throw_errno(o.output, close_err);  // the counts did not all reach the file
  return restore_errors.empty() ? loop.child_status() : 1;
}

}  // namespace pmukit::tools
