// pmukit -- counting a whole -e list with the kernel's perf PMUs: bind each EventSpec to the
// PMUs it names, split the events into groups the kernel accepts, open each group on every CPU it
// must count on, and read them back aggregated the way perf stat does.
//
// Grouping: the kernel schedules a group on one PMU (software events may join any group), so
// events of different PMUs never share one. With Grouping::by_pmu the events of one PMU share a
// group, which gives them one time base and one read(2); a user's {...} group is kept, split by
// PMU if it mixes PMUs, and its software events join the group of its first other PMU. A group
// needing more counters than its PMU has is never scheduled (reads as not counted); Grouping::none
// opens every event alone so the kernel can multiplex them, as perf stat does without braces.
//
// CPUs: system-wide, a group opens on every CPU of its PMU's cpumask (intersected with the chosen
// CPUs), or on the chosen CPUs, or on every online CPU, like perf stat -a; per task, once with
// cpu -1. Counts are summed over the CPUs and then scaled, as perf aggregates.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/perf/group.h"
#include "pmukit/syntax/event_spec.h"

namespace pmukit {
class Machine;
}

namespace pmukit::perf {

// An event bound to one kernel PMU.
struct BoundEvent {
  Counter counter;
  std::vector<int> cpumask;  // the PMU's cpumask; empty: any CPU
  int group = -1;            // the {...} group it was written in, -1 when none
  std::size_t spec = 0;      // index of the EventSpec it came from
};

// Binds parsed events to this machine's PMUs. "pmu/.../" names expand as find_pmus() matches them
// (one BoundEvent per PMU instance); a bare name is a software event (cpu-clock, task-clock,
// page-faults, ...) or else an alias found in any PMU; modifiers u, k, h, I, D, e become attr bits
// as perf sets them. Throws UsageError naming the event ("event 'foo/x/': kernel has no PMU
// 'foo' ...", encoder errors, unsupported modifiers).
std::vector<BoundEvent> bind_events(const Machine& machine, std::span<const syntax::EventSpec> specs);

// The names Linux gives the CPU's core PMU: cpu (x86), cpu_core/cpu_atom (hybrid x86),
// armv8_pmuv3_<n> and armv8_<core> (Arm, drivers/perf/arm_pmuv3.c). Bare rNNNN events go to it too.
bool is_core_pmu_name(std::string_view pmu);

enum class Grouping { by_pmu, none };

// The groups the events go in: lists of indexes into `events`, in first-use order, with each
// group's members in the order written (the first is the leader).
std::vector<std::vector<std::size_t>> plan_groups(std::span<const BoundEvent> events, Grouping grouping);

struct CountOptions {
  std::optional<int> pid;  // count this task (cpu -1); unset: system-wide
  std::vector<int> cpus;   // system-wide: these CPUs (empty: each PMU's cpumask, else all online)
  bool inherit = false;    // per task: include children created later
  Grouping grouping = Grouping::by_pmu;
};

// One event's count, summed over every CPU its group was opened on.
struct EventCount {
  std::string name;
  std::string pmu;
  std::string unit;
  std::uint64_t raw = 0;           // sum of the raw counts
  std::uint64_t time_enabled = 0;  // sums of the group times
  std::uint64_t time_running = 0;
  std::uint64_t scaled = 0;    // raw scaled for multiplexing, as perf does
  double value = 0;            // scaled times the alias scale, in `unit`
  bool counted = false;        // false: perf's "<not counted>"
  double running_percent = 0;  // perf's pcnt-running
  std::size_t instances = 0;   // how many opened events were summed (CPUs)
};

class EventSet {
 public:
  // Opens every group, all stopped. Throws Error (the first failing open, explained) or
  // UsageError (a PMU whose cpumask has none of the chosen CPUs).
  EventSet(const Machine& machine, std::vector<BoundEvent> events, const CountOptions& options);

  void enable();
  void disable();
  void reset();
  // One read(2) per group, each CPU's groups read on that CPU; one EventCount per bound event,
  // in binding order. The thread's CPU affinity is the same after the call as before it.
  std::vector<EventCount> read();
  // The same into `counts`, reused from one read to the next (a read in steady state allocates
  // nothing of its own).
  void read(std::vector<EventCount>& counts);

  const std::vector<BoundEvent>& events() const { return events_; }
  const std::vector<Group>& groups() const { return groups_; }

 private:
  std::vector<BoundEvent> events_;
  std::vector<Group> groups_;
  std::vector<std::vector<std::size_t>> members_;  // per group: event index of each counter
  GroupReading scratch_;
  std::vector<std::size_t> order_;  // groups in CPU order
  bool visit_cpus_ = true;          // false once moving to a CPU was refused
};

}  // namespace pmukit::perf
