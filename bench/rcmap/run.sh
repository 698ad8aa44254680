#!/usr/bin/env bash
# Times pmu-rcmap against the guide's bash script (lspci + 5 setpci per device) on the bundled
# t410-2s snapshot: both read the same sysfs tree through libpci's linux-sysfs method
# (-A linux-sysfs -O sysfs.path=...). Checks the outputs are identical, then prints the mean wall
# time of each and the ratio. Usage: bench/rcmap/run.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build/default}
runs=${2:-20}
tools=$build/tools
for t in pmu-rcmap pmu-discover; do [ -x "$tools/$t" ] || { echo "run.sh: $tools/$t not built" >&2; exit 1; }; done
for p in lspci setpci gawk; do command -v $p >/dev/null || { echo "run.sh: $p is needed (apt-get install pciutils gawk)" >&2; exit 1; }; done
work=$(mktemp -d "${TMPDIR:-/tmp}/pmukit-rcmap-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$tools/pmu-discover" --machine t410-2s --write-machine "$work/m"
export PCI_OPTS="-A linux-sysfs -O sysfs.path=$work/m/sys/bus/pci"
# awk in the script must be gawk, whatever /usr/bin/awk is.
mkdir -p "$work/bin" && ln -s "$(command -v gawk)" "$work/bin/awk"
guide_script() { PATH="$work/bin:$PATH" bash "$here/guide-rcmap.sh" 2>/dev/null; }
ours() { "$tools/pmu-rcmap" $PCI_OPTS; }
guide_script > "$work/guide.out"
ours > "$work/ours.out"
diff -u "$work/guide.out" "$work/ours.out" >&2 || { echo "run.sh: outputs differ" >&2; exit 1; }
echo "outputs identical: $(wc -l < "$work/ours.out") lines"
time_runs() {  # prints mean seconds per run
  local start end
  start=$(date +%s%N)
  for ((i = 0; i < runs; i++)); do "$@" > /dev/null; done
  end=$(date +%s%N)
  echo "scale=6; ($end - $start) / $runs / 1000000000" | bc
}
command -v bc >/dev/null || { echo "run.sh: bc is needed" >&2; exit 1; }
t_guide=$(time_runs guide_script)
t_ours=$(time_runs ours)
devices=$(lspci $PCI_OPTS | wc -l)
echo "snapshot: t410-2s, $devices PCI devices, 21 with the RC-mapping DVSEC; $runs runs each"
printf 'the guide script (lspci + setpci): %8.4f s per run\n' "$t_guide"
printf 'pmu-rcmap:                    %8.4f s per run\n' "$t_ours"
printf 'ratio: pmu-rcmap is %.1fx faster\n' "$(echo "scale=3; $t_guide / $t_ours" | bc)"
