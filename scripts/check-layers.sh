#!/usr/bin/env bash
# Style checks run by CTest (docs/architecture.md): every layer includes only layers above it and
# never a layer of its own row; tools include the library's public facade only; no library or tool
# source file grows past 500 lines.
set -euo pipefail
cd "$(dirname "$0")/.."
# Layer rank, one per row of docs/architecture.md's table: a file may include pmukit/<layer>/
# headers of its own layer or of a lower rank (a row above) only. util is a row of its own: every
# layer builds on it, so it can share a row with none.
ranks="util=0 regs=1 syntax=1 access=2 platform=2 pci=3 acpi=3 discovery=4 snapshot=5 pmu=5 perf=5 events=6 metrics=6 sim=6 counting=7"
status=0
grep -rHo '#include "pmukit/[a-z_]*/[a-z_./]*"' include/pmukit src |
  awk -v ranks="$ranks" '
    BEGIN { n = split(ranks, r, " "); for (i = 1; i <= n; i++) { split(r[i], kv, "="); rank[kv[1]] = kv[2] } }
    {
      split($0, parts, ":"); file = parts[1]
      split(file, p, "/"); layer = (p[1] == "include") ? p[3] : p[2]
      match($0, /"pmukit\/[a-z_]+\//); dep = substr($0, RSTART + 8, RLENGTH - 9)
      if (!(layer in rank)) { print file ": unknown layer folder " layer; bad = 1; next }
      if (!(dep in rank)) { print file ": includes the unknown layer " dep; bad = 1; next }
      if (rank[dep] > rank[layer]) { print file ": layer " layer " includes the higher layer " dep; bad = 1 }
      else if (rank[dep] == rank[layer] && dep != layer) { print file ": layer " layer " includes " dep ", a layer of its own row"; bad = 1 }
    }
    END { exit bad }' || status=1
# The facade: tools reach hardware through the library's layers (pci/ for config space and device
# names, pmu/ for registers, discovery/), never through access/ internals. From access/ they may
# include the machine root (machine.h) and the PCI address type (bdf.h) only.
if grep -rHn '#include "pmukit/access/' tools | grep -v -e '"pmukit/access/machine.h"' -e '"pmukit/access/bdf.h"'; then
  echo "tools include access/ internals: use the library's facade (docs/architecture.md, 'The facade')"
  status=1
fi
find src include tools -name '*.cpp' -o -name '*.h' | xargs wc -l |
  awk '$2 != "total" && $1 > 500 { print $2 ": " $1 " lines (keep files under 500)"; bad = 1 } END { exit bad }' || status=1
exit $status
