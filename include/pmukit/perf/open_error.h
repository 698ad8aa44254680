// pmukit -- turns a perf_event_open errno into one line that names the event and says what to
// change, reading the machine for the facts that decide it (perf_event_paranoid, the PMU's
// directory and cpumask, the open-file limit).
//
// How this project's kernels answer (toolchain.md §4, and the kernel's perf core):
//   ENOENT        no PMU has that type, or the PMU does not know the event
//   EINVAL        a config the PMU rejects; exclude bits on a PMU that cannot filter (uncore,
//                 msr); per-task counting on an uncore PMU; events of two PMUs in one group
//   EACCES/EPERM  perf_event_paranoid and missing CAP_PERFMON (system-wide counting needs
//                 paranoid <= 0, per-task counting of kernel work <= 1, user-only work <= 2)
//   EBUSY         the PMU's counters are held exclusively by someone else
//   EMFILE        the process ran out of file descriptors (one per event per CPU)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pmukit {
class Machine;
}

namespace pmukit::perf {

// What was being opened, as far as the caller knows it; empty fields are left out of the answer.
struct OpenAttempt {
  std::string event;         // the event as the user wrote it
  std::string pmu;           // the kernel PMU name, "" if unknown
  std::uint32_t type = 0;    // perf_event_attr.type (used when pmu is "")
  int pid = -1;              // >= 0: per-task counting of this process
  int cpu = -1;              // >= 0: system-wide on this CPU; pid and cpu both -1: not known
  bool excludes = false;     // some exclude_user/kernel/hv/idle bit was set
  std::string group_leader;  // set when joining a group: the leader's PMU
};

// One line: "event 'uncore_imc_0/cas_count_read/': <what is wrong>; <what to change>".
std::string explain_open_error(int err, const Machine& machine, const OpenAttempt& attempt);

// The same from just the event text; the PMU is taken from "pmu/.../", the rest is unknown, so
// privilege errors assume system-wide counting (what uncore PMUs need).
std::string explain_open_error(int err, const Machine& machine, std::string_view event);

}  // namespace pmukit::perf
