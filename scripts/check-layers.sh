#!/usr/bin/env bash
# Style checks run by CTest (docs/architecture.md): every layer includes only layers above it and
# never a layer of its own row; tools include the library's public facade only; no library or tool
# source file grows past 500 lines; what pmukit ships cites only public sources.
set -euo pipefail
cd "$(dirname "$0")/.."
# Layer rank, one per row of docs/architecture.md's table: a file may include pmukit/<layer>/
# headers of its own layer or of a lower rank (a row above) only. util is a row of its own: every
# layer builds on it, so it can share a row with none.
ranks="util=0 regs=1 syntax=1 access=2 platform=2 pci=3 acpi=3 discovery=4 snapshot=5 pmu=5 perf=5 events=6 metrics=6 sim=6 families=7 counting=8"
status=0
# A family's folder (families/<name>/) is a column through the layers: its register map
# (<x>_regs.h) ranks with regs and the types of its platform data (the files named in
# family_platform below), which the platform database parses, with platform; the rest of it ranks
# above every core layer.
family_platform="counter_constraints kernel_boxes iio_scheme coresight_programming cmn_data"
grep -rHo '#include "pmukit/[a-z_]*/[a-z0-9_./]*"' include/pmukit src |
  awk -v ranks="$ranks" -v fplat="$family_platform" '
    BEGIN {
      n = split(ranks, r, " "); for (i = 1; i <= n; i++) { split(r[i], kv, "="); rank[kv[1]] = kv[2] }
      n = split(fplat, f, " "); for (i = 1; i <= n; i++) platform_file[f[i]] = 1
    }
    # The layer of a file of families/<name>/ by its name (without folder and extension).
    function family_layer(base) {
      if (base ~ /_regs$/) return "regs"
      if (base in platform_file) return "platform"
      return "families"
    }
    function stem(path,   q, k) { k = split(path, q, "/"); sub(/\.[a-z]+$/, "", q[k]); return q[k] }
    {
      split($0, parts, ":"); file = parts[1]
      split(file, p, "/"); layer = (p[1] == "include") ? p[3] : p[2]
      if (layer == "families") layer = family_layer(stem(file))
      match($0, /"pmukit\/[a-z_]+\//); dep = substr($0, RSTART + 8, RLENGTH - 9)
      if (dep == "families") { match($0, /"pmukit\/[a-z0-9_.\/]+"/); dep = family_layer(stem(substr($0, RSTART + 1, RLENGTH - 2))) }
      if (!(layer in rank)) { print file ": unknown layer folder " layer; bad = 1; next }
      if (!(dep in rank)) { print file ": includes the unknown layer " dep; bad = 1; next }
      if (rank[dep] > rank[layer]) { print file ": layer " layer " includes the higher layer " dep; bad = 1 }
      else if (rank[dep] == rank[layer] && dep != layer) { print file ": layer " layer " includes " dep ", a layer of its own row"; bad = 1 }
    }
    END { exit bad }' || status=1
# Families (src/families/<name>/, include/pmukit/families/<name>/) are units: one includes no other
# family's headers; only the registry (families/registry.*) names them all.
grep -rHo '#include "pmukit/families/[a-z0-9_]*/' include/pmukit/families src/families |
  awk '{
      split($0, parts, ":"); file = parts[1]
      split(file, p, "/"); own = (p[1] == "include") ? p[4] : p[3]
      match($0, /families\/[a-z0-9_]+\//); dep = substr($0, RSTART + 9, RLENGTH - 10)
      if (own != dep && own !~ /^registry\./) { print file ": family " own " includes family " dep; bad = 1 }
    }
    END { exit bad }' || status=1
# No code outside the families tells one family from another: the core dispatches through the
# unit's family (discovery/family.h), so no family name is compared or spelled out there.
# (Comments may name families.)
# The platform database (platform/) reads each family's data under its JSON key ("coresight"):
# data, not dispatch.
if find src include/pmukit tools -name '*.cpp' -o -name '*.h' | grep -vE '^(src|include/pmukit)/(families|platform)/' |
  xargs perl -ne 's{//.*}{}; print "$ARGV:$.: $_" if /family_name\([^)]*\) *[!=]=|unit_family\([^)]*\) *[!=]=|"(intel-uncore|coresight|dwc-rasdes|t410-c2c|t410-cmem-latency|arm-cmn)"/; close ARGV if eof' |
  grep .; then
  echo "code outside src/families/ tells families apart: dispatch through the unit's family (docs/architecture.md, 'Families')"
  status=1
fi
# The facade: tools reach hardware through the library's layers (pci/ for config space and device
# names, pmu/ for registers, discovery/), never through access/ internals. From access/ they may
# include the machine root (machine.h) and the PCI address type (bdf.h) only.
if grep -rHn '#include "pmukit/access/' tools | grep -v -e '"pmukit/access/machine.h"' -e '"pmukit/access/bdf.h"'; then
  echo "tools include access/ internals: use the library's facade (docs/architecture.md, 'The facade')"
  status=1
fi
find src include tools -name '*.cpp' -o -name '*.h' | xargs wc -l |
  awk '$2 != "total" && $1 > 500 { print $2 ": " $1 " lines (keep files under 500)"; bad = 1 } END { exit bad }' || status=1
# What pmukit ships cites only public sources (docs/references.md; kernel files by path and
# function), never the project's internal notes: users have neither the hardware.md research note
# nor the ../shared directory beside the checkout. Tests may use ../shared when it is there (they
# skip without it) but cite no internal note either.
internal='hardware\.md|\.\./shared|/work/shared'
if grep -rnIE "$internal" src include tools platforms docs packaging examples README.md; then
  echo "product files cite internal notes: cite the public source instead (docs/references.md)"
  status=1
fi
if grep -rnI 'hardware\.md' tests scripts bench fuzz cmake CMakeLists.txt | grep -v '^scripts/check-layers.sh:'; then
  echo "tests or build files cite the internal hardware.md note: cite the public source instead"
  status=1
fi
exit $status
