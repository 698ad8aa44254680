// pmukit -- CpuVisitor: sched_setaffinity around per-CPU reads.
#include "pmukit/perf/cpu_affinity.h"

namespace pmukit::perf {

CpuVisitor::CpuVisitor() {
  saved_ = ::sched_getaffinity(0, sizeof original_, &original_) == 0;
}

CpuVisitor::~CpuVisitor() {
  if (moved_) ::sched_setaffinity(0, sizeof original_, &original_);
}

bool CpuVisitor::move_to(int cpu) {
  if (!saved_ || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &original_)) return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (::sched_setaffinity(0, sizeof one, &one) != 0) return false;
  moved_ = true;
  return true;
}

int CpuVisitor::current() {
  return ::sched_getcpu();
}

}  // namespace pmukit::perf
