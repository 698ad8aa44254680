// pmukit -- rows of counts: scaling for multiplexing, and summing reads.
#include "pmukit/counting/backend.h"

#include "pmukit/perf/group.h"

namespace pmukit::counting {

void scale_row(Row& row) {
  row.count = perf::scale_count(row.raw, row.enabled_ns, row.running_ns);
}

void add_read(Row& into, const Row& later) {
  into.raw += later.raw;
  into.enabled_ns += later.enabled_ns;
  into.running_ns += later.running_ns;
  into.lost = into.lost || later.lost;
  scale_row(into);
}

}  // namespace pmukit::counting
