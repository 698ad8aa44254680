// pmukit -- perf_event_open errno explanations.
#include "pmukit/perf/open_error.h"

#include <linux/perf_event.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/access/machine.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/text.h"

namespace pmukit::perf {

namespace {

// The PMU's sysfs entry, if it can be read; explanations must not fail on a broken tree.
std::optional<SysfsPmu> lookup(const Machine& machine, const OpenAttempt& a) {
  try {
    if (!a.pmu.empty()) return read_pmu(machine, a.pmu);
    for (auto& pmu : list_pmus(machine))
      if (pmu.type == a.type) return pmu;
  } catch (const Error&) {
  }
  return std::nullopt;
}

std::string pmu_label(const OpenAttempt& a) {
  return a.pmu.empty() ? fmt::format("type {}", a.type) : fmt::format("'{}'", a.pmu);
}

std::string cpu_list(const std::vector<int>& cpus) {
  return fmt::format("{}", fmt::join(cpus, ","));
}

std::string no_such_pmu(const Machine& machine, const OpenAttempt& a) {
  std::string what = a.pmu.empty() ? fmt::format("with type {}", a.type) : pmu_label(a);
  return fmt::format("kernel has no PMU {} (is its driver loaded? PMUs are listed in {})", what,
                     machine.param("events.path").string());
}

std::string explain_enoent(const Machine& machine, const OpenAttempt& a, const std::optional<SysfsPmu>& pmu) {
  // PERF_TYPE_HARDWARE (cycles, instructions...) goes to whatever core PMU the CPU has.
  if (a.type == PERF_TYPE_HARDWARE && (a.pmu.empty() || a.pmu == "cpu"))
    return "the CPU's core PMU does not count this generic hardware event here (no core PMU driver, or a virtual "
           "machine without a virtual PMU)";
  if (a.type == PERF_TYPE_RAW)
    return "the CPU's core PMU does not count raw events here (no core PMU driver, or a virtual machine without a "
           "virtual PMU)";
  if (!pmu) return no_such_pmu(machine, a);
  return fmt::format("PMU '{}' (type {}) does not know this event; check its terms against {} and {}", pmu->name(),
                     pmu->type, (pmu->dir / "format").string(), (pmu->dir / "events").string());
}

std::string explain_einval(const OpenAttempt& a, const std::optional<SysfsPmu>& pmu) {
  std::string name = pmu ? fmt::format("'{}'", pmu->name()) : pmu_label(a);
  // Software events may join any group, and any event may join a software-led one.
  bool mixed =
      !a.group_leader.empty() && a.group_leader != a.pmu && a.pmu != "software" && a.group_leader != "software";
  if (mixed)
    return fmt::format("PMU {} cannot join a group led by PMU '{}': a group counts on one PMU (plus software "
                       "events); put them in separate groups",
                       name, a.group_leader);
  if (a.excludes)
    return fmt::format("PMU {} cannot count by privilege level: drop the u/k/h/I modifiers (uncore and msr PMUs "
                       "count everything)",
                       name);
  if (pmu && !pmu->cpumask.empty()) {
    if (a.pid >= 0)
      return fmt::format("PMU {} counts system-wide only (it has a cpumask): count it on a CPU, not per task", name);
    if (a.cpu >= 0 && std::find(pmu->cpumask.begin(), pmu->cpumask.end(), a.cpu) == pmu->cpumask.end())
      return fmt::format("PMU {} counts on CPU {} (its cpumask), not on CPU {}", name, cpu_list(pmu->cpumask), a.cpu);
  }
  std::string where = pmu ? fmt::format(" against {}", (pmu->dir / "format").string()) : "";
  return fmt::format("PMU {} rejected the configuration (a term out of range or not supported by this PMU); "
                     "check the terms{}",
                     name, where);
}

std::string explain_eacces(const Machine& machine, const OpenAttempt& a) {
  auto paranoid_file = machine.param("kernel.path") / "perf_event_paranoid";
  std::optional<std::int64_t> paranoid;
  std::string lockdown;
  try {  // only for the message: an odd file here must not hide the error being explained
    paranoid = machine.files().read_int(paranoid_file);
    lockdown = machine.files().read_line(machine.param("lockdown.path")).value_or("");
  } catch (const Error&) {
  }
  bool system_wide = a.pid < 0;
  int needed = system_wide ? 0 : a.excludes ? 2 : 1;
  std::string kind = system_wide  ? "system-wide (and uncore) counting"
                     : a.excludes ? "per-task counting of user space"
                                  : "per-task counting that includes the kernel";
  if (::geteuid() == 0) {
    return fmt::format("permission denied although running as root (kernel.perf_event_paranoid is {}{}): a "
                       "security module, seccomp filter or container policy blocks perf_event_open; allow it "
                       "there",
                       paranoid ? std::to_string(*paranoid) : "unknown",
                       lockdown.empty() ? "" : fmt::format(", lockdown {}", lockdown));
  }
  std::string now = paranoid ? fmt::format("kernel.perf_event_paranoid is {}", *paranoid)
                             : fmt::format("{} is unreadable", paranoid_file.string());
  return fmt::format("permission denied: {} and {} needs {} or less; run as root, grant CAP_PERFMON (setcap "
                     "cap_perfmon+ep on the tool), or set sysctl kernel.perf_event_paranoid={}",
                     now, kind, needed, needed);
}

std::string explain_emfile() {
  rlimit lim{};
  std::string limit =
      ::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY ? fmt::format(" of {}", lim.rlim_cur) : "";
  return fmt::format("too many open files: every event on every CPU is one descriptor, and the process limit{} "
                     "is used up; raise it (ulimit -n) or count fewer events or CPUs",
                     limit);
}

}  // namespace

std::string explain_open_error(int err, const Machine& machine, const OpenAttempt& a) {
  if (err < 0) err = -err;
  // Only the PMU-specific answers read sysfs: after EMFILE or ENFILE no file can be opened.
  std::optional<SysfsPmu> pmu;
  if (err == ENOENT || err == EINVAL || err == EBUSY) pmu = lookup(machine, a);
  std::string why;
  switch (err) {
  case ENOENT:
    why = explain_enoent(machine, a, pmu);
    break;
  case EINVAL:
    why = explain_einval(a, pmu);
    break;
  case EACCES:
  case EPERM:
    why = explain_eacces(machine, a);
    break;
  case EBUSY:
    why = fmt::format("PMU {} is busy: another user (a pinned or exclusive perf session, another pmukit, or a "
                      "driver such as the NMI watchdog) holds its counters; stop it and retry",
                      pmu ? fmt::format("'{}'", pmu->name()) : pmu_label(a));
    break;
  case EMFILE:
    why = explain_emfile();
    break;
  case ENFILE:
    why = "the system file table is full; raise fs.file-max or close files";
    break;
  case ENODEV:
  case EOPNOTSUPP:
    if (a.pid >= 0)
      why = fmt::format("PMU {} does not support per-task counting; count it on a CPU", pmu_label(a));
    else if (a.cpu >= 0)
      why = fmt::format("PMU {} cannot count on CPU {} (offline, or not one of its CPUs)", pmu_label(a), a.cpu);
    else
      why = fmt::format("PMU {} does not support this kind of counting ({})", pmu_label(a), errno_text(err));
    break;
  case ESRCH:
    why = fmt::format("no process {} to count", a.pid);
    break;
  case E2BIG:
    why = "the kernel is older than pmukit's perf_event_attr and rejected a field it lacks";
    break;
  default:
    why = fmt::format("perf_event_open failed: {}", errno_text(err));
    break;
  }
  return fmt::format("event '{}': {}", a.event, why);
}

std::string explain_open_error(int err, const Machine& machine, std::string_view event) {
  OpenAttempt a;
  a.event = std::string(event);
  if (auto slash = event.find('/'); slash != std::string_view::npos) a.pmu = std::string(event.substr(0, slash));
  return explain_open_error(err, machine, a);
}

}  // namespace pmukit::perf
