// pmukit -- one perf event group: N counters opened together on one CPU (system-wide) or on one
// task, enabled and disabled as a unit, and read with a single read(2).
//
// Every member has read_format GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID, so one read
// of the leader returns {nr, time_enabled, time_running, {value, id} x nr}: the values share one
// time base, which is the point of a group. The leader is opened disabled and the members follow
// it, so the whole group starts counting at one enable(). No exclude bits are set unless asked
// for, because uncore and msr PMUs reject them with EINVAL.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/perf/syscall.h"

namespace pmukit {
class Machine;
}

namespace pmukit::perf {

// One event, ready for perf_event_attr.
struct Counter {
  std::string name;  // the display name: as written, or the name= label
  std::string pmu;   // the kernel PMU name, for messages
  std::uint32_t type = 0;
  std::uint64_t config = 0;
  std::uint64_t config1 = 0;
  std::uint64_t config2 = 0;
  bool exclude_user = false;  // from the u/k/h/I modifiers
  bool exclude_kernel = false;
  bool exclude_hv = false;
  bool exclude_idle = false;
  bool pinned = false;     // D: only meaningful on a group leader
  bool exclusive = false;  // e: only meaningful on a group leader
  double scale = 1.0;      // the alias's .scale, applied by callers that print values
  std::string unit;        // the alias's .unit

  bool has_excludes() const { return exclude_user || exclude_kernel || exclude_hv || exclude_idle; }
};

// Where a group counts: system-wide on one CPU (pid -1), or one task on any CPU (cpu -1).
struct Target {
  int pid = -1;
  int cpu = -1;
  bool inherit = false;  // per task: also count children created after the open

  static Target on_cpu(int cpu) { return Target{-1, cpu, false}; }
  static Target task(int pid, bool inherit = false) { return Target{pid, -1, inherit}; }
};

// perf's scaling of a multiplexed count: value * enabled / running (truncated, as perf does);
// 0 when the event never ran.
std::uint64_t scale_count(std::uint64_t value, std::uint64_t enabled, std::uint64_t running);

struct GroupReading {
  std::vector<std::uint64_t> values;  // raw counts, in the order the counters were given
  std::uint64_t time_enabled = 0;     // ns the group was enabled
  std::uint64_t time_running = 0;     // ns it was on the PMU (less when multiplexed)

  bool counted() const { return time_running > 0; }  // false: perf's "<not counted>"
  bool multiplexed() const { return time_running < time_enabled; }
  // perf's pcnt-running: 100 * running / enabled; 0 before the group was ever enabled.
  double running_percent() const;
  // values[i] scaled for multiplexing.
  std::uint64_t scaled(std::size_t i) const;
};

class Group {
 public:
  // Opens every counter, the first as the leader, all stopped. Throws Error with
  // explain_open_error()'s line for the counter that failed; nothing stays open then.
  Group(const Machine& machine, std::vector<Counter> counters, Target target);
  Group(Group&&) noexcept = default;
  Group& operator=(Group&&) noexcept = default;

  // Start, stop and zero all members at once (PERF_IOC_FLAG_GROUP on the leader).
  void enable();
  void disable();
  void reset();

  // One read(2) of the leader. Not thread-safe: one reader per group.
  GroupReading read();
  // The same into `out`, reusing its storage (no allocation once it has the size).
  void read_into(GroupReading& out);

  const std::vector<Counter>& counters() const { return counters_; }
  const Target& target() const { return target_; }
  std::size_t size() const { return counters_.size(); }
  // The kernel's id of each member (PERF_EVENT_IOC_ID), in counter order.
  const std::vector<std::uint64_t>& ids() const { return ids_; }
  int leader_fd() const { return fds_.front().get(); }

 private:
  void group_ioctl(unsigned long request, const char* what);

  std::vector<Counter> counters_;
  Target target_;
  std::vector<EventFd> fds_;
  std::vector<std::uint64_t> ids_;
  std::vector<std::uint64_t> buf_;  // the read(2) buffer: 3 + 2 * size() words
};

}  // namespace pmukit::perf
