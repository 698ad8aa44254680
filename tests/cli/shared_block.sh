# Two units on one register block are never programmed twice (issue 30, point 3): an APMT that
# places Grace's socket-1 SCF PMU on socket 0's page. pmu-discover names both in a warning;
# pmu-sim steps the page once; pmu-raw counting the two refuses the second, naming the first (it
# counted 400,000,000 for 100,000,000 and left a counter enabled); one of them alone counts what
# the simulator models, and every register is back afterwards.
. "$(dirname "$0")/common.sh"
"$PYTHON" - "$PMUKIT_SRC/platforms/machines/grace-2s.json" "$T/shared.json" << 'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
nodes = spec["apmt"]["nodes"]
assert nodes[5]["kernel_pmu"] == "nvidia_scf_pmu_1"
nodes[5]["base0"], nodes[5]["base1"] = nodes[0]["base0"], nodes[0]["base1"]
json.dump(spec, open(sys.argv[2], "w"))
PY
"$BIN/pmu-sim" create --spec "$T/shared.json" "$T/g" > /dev/null
"$BIN/pmu-discover" --snapshot "$T/g" > /dev/null 2> "$T/err"
grep -qF 'pmu-discover: warning: nvidia_scf_pmu_0 and nvidia_scf_pmu_1 claim the same register (MMIO 0x11000000)' \
  "$T/err"
tree_sum() { (cd "$1" && find . -type f ! -path './run/*' -print0 | sort -z | xargs -0 md5sum); }
tree_sum "$T/g" > "$T/before"
"$BIN/pmu-sim" run "$T/g" > "$T/sim.out" 2>&1 &
SIM_PIDS+=($!)
trap 'stop_background; rm -rf "$T"' EXIT
# pmu-sim publishes its clock page before it prints what it simulates: wait for the printed lines.
for ((i = 0; i < 2000; i++)); do grep -q '^pmu-sim: simulating' "$T/sim.out" && break; sleep 0.005; done
grep -qxF 'pmu-sim: not simulated: nvidia_scf_pmu_1 (shares registers with nvidia_scf_pmu_0)' "$T/sim.out" ||
  { cat "$T/sim.out" >&2; exit 1; }
status 1 "$BIN/pmu-raw" --snapshot "$T/g" --backend direct -e nvidia_scf_pmu/cycles/ -x, -- \
  "$BIN/pmu-sim" advance "$T/g" 100 > /dev/null 2> "$T/err"
grep -qF 'nvidia_scf_pmu_1 shares registers with nvidia_scf_pmu_0, which this run programs' "$T/err" ||
  { cat "$T/err" >&2; exit 1; }
# One of them: 100 ms of the SCF's cycles at pmu-sim's rate (platforms/sim/rates.json), once.
"$BIN/pmu-raw" --snapshot "$T/g" --backend direct -e nvidia_scf_pmu_0/cycles/ -x, -- \
  "$BIN/pmu-sim" advance "$T/g" 100 > "$T/out"
grep -q '^100000000,,nvidia_scf_pmu_0/cycles/,' "$T/out" || { cat "$T/out" >&2; exit 1; }
stop_background
tree_sum "$T/g" > "$T/after"
diff "$T/before" "$T/after"
