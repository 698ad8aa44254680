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

#include "common/counting_setup.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/sim/clock.h"
#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"
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

// The events, metrics, clock and backend of a run, before anything is written.
void set_up(RawOptions& o, Machine& machine, RunSetup& run) {
  run.per_socket = o.report.aggregation == Aggregation::PerSocket;
  CountingRequest request{
      o.events, o.metrics, o.event_files,
      BackendRequest{o.backend, o.force, run.per_socket, o.interval_ms.value_or(0), o.mux_interval_ms}};
  if (o.report.aggregation == Aggregation::PerDevice) request.iio_scope = IioScope::Device;
  if (o.report.aggregation == Aggregation::PerStack) request.iio_scope = IioScope::Stack;
  set_up_counting(machine, request, run);
  for (const auto& w : run.warnings) fmt::print(stderr, "pmu-raw: warning: {}\n", w);
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

int run_recover(const MachineArgs& machine_args, bool take_over) {
  install_signals();  // a restore is not cut short by a signal; the flag only ends waits that may end
  auto machine = make_machine(machine_args);
  // No journal, nothing to do: said without the lock, which a read-only snapshot cannot hold.
  if (!pmu::journal_exists(*machine)) {
    fmt::print(stderr, "pmu-raw: nothing to recover (no journal {})\n", pmu::journal_path(*machine).string());
    return 0;
  }
  machine->check_no_links(machine->param("sim.path") / "clock");  // mapped read-write by name
  auto time = sim::machine_clock(*machine);
  auto found = discovery::discover(*machine);
  auto r = pmu::recover_under_lock(*machine, found.inventory, platform::Database::builtin(), time.settle,
                                   take_over ? pmu::WriterDoubt::TakeOver : pmu::WriterDoubt::Refuse);
  fmt::print(stderr, "pmu-raw: {}\n",
             r ? r->message()
               : fmt::format("nothing to recover (no journal {})", pmu::journal_path(*machine).string()));
  return 0;
}

int run_discard_journal(const MachineArgs& machine_args) {
  auto machine = make_machine(machine_args);
  auto aside = pmu::discard_journal(*machine);
  if (!aside) {
    fmt::print(stderr, "pmu-raw: no journal to discard ({})\n", pmu::journal_path(*machine).string());
    return 0;
  }
  fmt::print(stderr, "pmu-raw: {} set aside as {}: the registers it lists were not restored\n",
             pmu::journal_path(*machine).string(), aside->string());
  return 0;
}

int run_counting(RawOptions& o) {
  if (o.events.empty() && o.metrics.empty()) throw UsageError("no events: give at least one -e EVENT or -M METRIC");
  // Before any register is programmed: a signal from then on ends the run through the restoring
  // path (the loop sees the flag at once), never with the counters left running.
  check_workload(o.command);
  install_signals();
  auto params = parse_metric_params(o.metric_params);  // a usage error before any work
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
