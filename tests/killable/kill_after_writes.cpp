// pmukit tests -- pmu-raw-killable: pmu-raw linked with this file ends itself at its N-th write
// point (PMUKIT_TEST_KILL_AFTER_WRITES=N; N = 0: right after the journal is durable, before any
// register write), as SIGKILL from outside would, but at a chosen point of the run. The installed
// pmu-raw has no such hook and reads no test variable (pmu/journal.h write_point).
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "pmukit/pmu/journal.h"
#include "pmukit/util/text.h"

namespace {

long kill_after = -1;

void kill_at(std::size_t writes_done) {
  if (kill_after < 0 || writes_done != static_cast<std::size_t>(kill_after)) return;
  ::raise(SIGKILL);
  // Still here: pid 1 of a PID namespace ignores its own SIGKILL. It ends as abruptly, with the
  // status a kill would give: no handler, destructor or restore runs.
  ::_exit(128 + SIGKILL);
}

// Runs before pmu-raw's main.
const bool installed = [] {
  const char* v = std::getenv("PMUKIT_TEST_KILL_AFTER_WRITES");
  if (auto n = v ? pmukit::parse_u64(v) : std::nullopt) kill_after = static_cast<long>(*n);
  pmukit::pmu::set_write_point_hook(kill_at);
  return true;
}();

}  // namespace
