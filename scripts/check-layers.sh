#!/usr/bin/env bash
# Style checks run by CTest: every layer includes only layers above it (docs/architecture.md),
# and no library or tool source file grows past 500 lines.
set -euo pipefail
cd "$(dirname "$0")/.."
rank() {
  case "$1" in
    util) echo 0 ;;
    access | platform) echo 1 ;;
    pci | acpi) echo 2 ;;
    discovery) echo 3 ;;
    snapshot | pmu | perf) echo 4 ;;
    events | metrics | sim) echo 5 ;;
    *) echo 99 ;;
  esac
}
status=0
for dir in include/pmukit/* src/*; do
  [ -d "$dir" ] || continue
  layer=$(basename "$dir")
  mine=$(rank "$layer")
  [ "$mine" = 99 ] && { echo "unknown layer folder: $dir"; status=1; continue; }
  while IFS=: read -r file _ inc; do
    dep=$(echo "$inc" | sed -E 's|.*"pmukit/([a-z_]+)/.*|\1|')
    # The shared event data types are plain structs every layer may name.
    [ "$inc" != "${inc%pmukit/events/pmu_description.h\"}" ] && continue
    if [ "$(rank "$dep")" -gt "$mine" ]; then
      echo "$file: layer '$layer' includes the higher layer '$dep': $inc"
      status=1
    fi
  done < <(grep -Hn '#include "pmukit/' "$dir" -r || true)
done
while read -r lines file; do
  [ "$file" = total ] && continue
  if [ "$lines" -gt 500 ]; then echo "$file: $lines lines (keep files under 500)"; status=1; fi
done < <(find src include tools -name '*.cpp' -o -name '*.h' | xargs wc -l)
exit $status
