// pmukit -- reading counters from the CPU they count on.
//
// read(2) of a system-wide perf event that counts on another CPU makes the kernel interrupt that
// CPU (an IPI per read: smp_call_function_single). perf stat avoids it by moving itself to each
// CPU in turn and reading that CPU's events there (tools/perf/util/affinity.c); a migration per
// CPU is far cheaper than an IPI per group when a CPU has several groups, and on virtual machines
// an IPI costs tens of microseconds. CpuVisitor does the same, and puts the original affinity back.
#pragma once

#include <sched.h>

namespace pmukit::perf {

class CpuVisitor {
 public:
  CpuVisitor();
  ~CpuVisitor();  // restores the affinity the thread had
  CpuVisitor(const CpuVisitor&) = delete;
  CpuVisitor& operator=(const CpuVisitor&) = delete;

  // Runs the calling thread on `cpu` from now on (until another move or destruction). False when
  // the thread may not run there (a cpuset, taskset) or the affinity cannot be read: the caller
  // then reads from where it is, which is correct, only slower.
  bool move_to(int cpu);
  // The CPU the thread is running on now (sched_getcpu), -1 when unknown.
  static int current();

 private:
  cpu_set_t original_;
  bool saved_ = false;
  bool moved_ = false;
};

}  // namespace pmukit::perf
