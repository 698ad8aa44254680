#!/usr/bin/env bash
# Style checks run by CTest: every layer includes only layers above it (docs/architecture.md),
# and no library or tool source file grows past 500 lines.
set -euo pipefail
cd "$(dirname "$0")/.."
# layer rank: a file may include pmukit/<layer>/ headers of equal or lower rank only.
ranks="util=0 syntax=0 regs=0 access=1 platform=1 pci=2 acpi=2 discovery=3 snapshot=4 pmu=4 perf=4 events=5 metrics=5 sim=5"
status=0
grep -rHo '#include "pmukit/[a-z_]*/[a-z_./]*"' include/pmukit src |
  awk -v ranks="$ranks" '
    BEGIN { n = split(ranks, r, " "); for (i = 1; i <= n; i++) { split(r[i], kv, "="); rank[kv[1]] = kv[2] } }
    {
      split($0, parts, ":"); file = parts[1]
      split(file, p, "/"); layer = (p[1] == "include") ? p[3] : p[2]
      match($0, /"pmukit\/[a-z_]+\//); dep = substr($0, RSTART + 8, RLENGTH - 9)
      if (!(layer in rank)) { print file ": unknown layer folder " layer; bad = 1; next }
      if (rank[dep] > rank[layer]) { print file ": layer " layer " includes the higher layer " dep; bad = 1 }
    }
    END { exit bad }' || status=1
find src include tools -name '*.cpp' -o -name '*.h' | xargs wc -l |
  awk '$2 != "total" && $1 > 500 { print $2 ": " $1 " lines (keep files under 500)"; bad = 1 } END { exit bad }' || status=1
exit $status
