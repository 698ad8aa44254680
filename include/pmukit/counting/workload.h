// pmukit -- the command a counting run counts over, as perf stat counts over its workload.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "pmukit/util/error.h"

namespace pmukit::counting {

// The workload could not be started: tools exit 255 for this, as perf stat does ("Workload failed:
// No such file or directory").
class WorkloadError : public Error {
 public:
  using Error::Error;
};

// Looks the command up as posix_spawnp will (a name with a slash as it is, any other along PATH),
// before anything is programmed: throws WorkloadError saying why it cannot run, so a run that cannot start
// counts nothing, as perf stat says so before it opens its events.
void check_workload(const std::vector<std::string>& command);

// Spawns the command with default signal dispositions; it becomes the process a SIGTERM to this one
// is passed on to (forward_to_workload). Throws WorkloadError when it cannot be started.
pid_t spawn_workload(const std::vector<std::string>& command);

// Whether the spawned command has ended: its exit status, or 128 + the signal that ended it, into
// `status` (and that signal, or 0, into `*signal`); it is then no longer the process a SIGTERM goes to.
bool reap_workload(pid_t child, int& status, int* signal = nullptr);

// For a signal handler (async-signal-safe): a SIGTERM aimed at this process alone reaches the
// running workload too (a terminal's SIGINT already did).
void forward_to_workload(int sig);

}  // namespace pmukit::counting
