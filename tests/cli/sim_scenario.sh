# pmu-sim run --scenario: a scenario file's counts over its span come out exactly over any time
# (advance takes ns/us/ms/s); every bundled scenario loads on the machine it names; bad scenarios
# and times are one-line errors. The guides' worked examples by scenario are rows of
# guide_replay.table.
. "$(dirname "$0")/common.sh"
SCENARIOS=${PMUKIT_SRC:?}/platforms/sim/scenarios

# A scenario of 1,000 Rx payload units per 0.4 s on root port 00:02.0: 2,500/s, exact at any time.
"$BIN/pmu-sim" create yitian "$T/y" > /dev/null
cat > "$T/rx.json" << 'EOF'
{"span_ns": 400000000, "events": [{"unit": "dwc_rootport_10", "code": "0x21", "count": 1000}]}
EOF
sim_start "$T/y" --scenario "$T/rx.json"
"$BIN/pmu-raw" --snapshot "$T/y" -e pcie_bdf_200/Rx_PCIe_TLP_Data_Payload/ -- \
  "$BIN/pmu-sim" advance "$T/y" 1500001us > "$T/out"
cat "$T/out"
grep -qE '^ +3,750 +' "$T/out"                   # floor(2,500/s x 1.500001 s)
grep -qE '^ +1\.500001000 seconds time elapsed' "$T/out"

# Every bundled scenario loads on the machine it names (its units are that machine's).
for f in "$SCENARIOS"/*.json; do
  name=$(basename "$f" .json)
  machine=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["machine"])' "$f")
  [ -d "$T/m-$machine" ] || "$BIN/pmu-sim" create "$machine" "$T/m-$machine" > /dev/null
  "$BIN/pmu-sim" run "$T/m-$machine" --scenario "$name" > "$T/run-$name.out" 2>&1 &
  pid=$!
  for ((i = 0; i < 1000; i++)); do
    grep -q "workload scenario" "$T/run-$name.out" && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.01
  done
  kill "$pid" 2> /dev/null || true
  wait "$pid" || true
  grep -q "workload scenario platforms/sim/scenarios/$name.json" "$T/run-$name.out" || { cat "$T/run-$name.out" >&2; exit 1; }
done

# A scenario of another machine, a bad file, an unknown name, a bad time: one line each.
status 1 "$BIN/pmu-sim" run "$T/m-grace-2s" --scenario yitian-fio-read 2> "$T/err"
[ "$(cat "$T/err")" = "pmu-sim: error: platforms/sim/scenarios/yitian-fio-read.json: unit 'dwc_rootport_10' is not on snapshot $T/m-grace-2s" ]
echo '{"events": [{"unit": "u", "code": "0x1", "count": 5}]}' > "$T/bad.json"
status 1 "$BIN/pmu-sim" run "$T/y" --scenario "$T/bad.json" 2> "$T/err"
[ "$(cat "$T/err")" = "pmu-sim: error: $T/bad.json: a rule gives a count, but the scenario has no span_ns" ]
status 2 "$BIN/pmu-sim" run "$T/y" --scenario no-such-scenario 2> "$T/err"
[ "$(cat "$T/err")" = "pmu-sim: error: --scenario 'no-such-scenario': no such file, and no bundled scenario of that name" ]
status 2 "$BIN/pmu-sim" advance "$T/y" 12x 2> "$T/err"
[ "$(cat "$T/err")" = "pmu-sim: error: '12x' is not a time: a whole number of ms, or with ns, us, ms or s" ]
echo "scenarios: exact counts over 1.500001 s; $(ls "$SCENARIOS"/*.json | wc -l) bundled scenarios load; errors named"
