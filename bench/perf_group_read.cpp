// pmukit bench -- the cost of one perf::Group read: N members (msr/tsc and software clocks)
// returned by a single read(2), N = 1..8.
//
// Three cases, because the kernel takes different paths:
//   task        per-task group on this thread: the events are active here, read locally.
//   cpu0/local  system-wide group on CPU 0, read by a thread pinned to CPU 0.
//   cpu0/remote the same group read from CPU 1: the kernel sends an IPI to CPU 0 to read it.
// A case that cannot open (no msr PMU, no privilege, one CPU) is skipped with the reason.
#include <benchmark/benchmark.h>
#include <sched.h>

#include <optional>
#include <string>

#include "pmukit/access/machine.h"
#include "pmukit/perf/event_set.h"
#include "pmukit/perf/group.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"

namespace {

using pmukit::perf::Group;
using pmukit::perf::Target;

enum class Where { task, cpu0_local, cpu0_remote };

// "msr/tsc/,cpu-clock,msr/tsc/,task-clock,...": n members, msr/tsc leading.
std::string member_list(int n) {
  static const char* const kCycle[] = {"msr/tsc/", "cpu-clock", "msr/tsc/", "task-clock"};
  std::string list;
  for (int i = 0; i < n; ++i) list += std::string(i ? "," : "") + kCycle[i % 4];
  return list;
}

// Pins the calling thread to `cpu` for the benchmark's lifetime, then restores its mask.
class Pin {
 public:
  explicit Pin(int cpu) {
    ::sched_getaffinity(0, sizeof old_, &old_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ok_ = ::sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~Pin() { ::sched_setaffinity(0, sizeof old_, &old_); }
  bool ok() const { return ok_; }

 private:
  cpu_set_t old_{};
  bool ok_ = false;
};

void BM_GroupRead(benchmark::State& state, Where where) {
  const int n = static_cast<int>(state.range(0));
  std::optional<Pin> pin;
  if (where != Where::task) {
    pin.emplace(where == Where::cpu0_local ? 0 : 1);
    if (!pin->ok()) {
      state.SkipWithError("cannot pin the thread to the CPU this case needs");
      return;
    }
  }
  std::optional<Group> group;
  try {
    pmukit::Machine live = pmukit::Machine::live();
    std::vector<pmukit::perf::Counter> counters;
    auto specs = pmukit::syntax::parse_event_list(member_list(n));
    for (auto& bound : pmukit::perf::bind_events(live, specs)) counters.push_back(bound.counter);
    group.emplace(live, std::move(counters), where == Where::task ? Target::task(0) : Target::on_cpu(0));
    group->enable();
  } catch (const pmukit::Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  pmukit::perf::GroupReading reading;
  for (auto _ : state) {
    group->read_into(reading);
    benchmark::DoNotOptimize(reading.values.data());
  }
  state.counters["members"] = n;
  state.counters["time_per_member"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK_CAPTURE(BM_GroupRead, task, Where::task)->DenseRange(1, 8);
BENCHMARK_CAPTURE(BM_GroupRead, cpu0_local, Where::cpu0_local)->DenseRange(1, 8);
BENCHMARK_CAPTURE(BM_GroupRead, cpu0_remote, Where::cpu0_remote)->DenseRange(1, 8);
