# Writers and what they may write (issue 30, points 2 and 4): a static snapshot -- no pmu-sim runs
# on it -- is never changed (pmu-raw and pmu-exporter refuse to program it, in one line naming
# `pmu-sim run`; afterwards every file is as it was -- only the locks, run/pmukit.lock and
# run/pmukit/UNIT.lock, may have been created, as on any machine -- and the next run is refused for the same reason, not
# "in use"); pmu-sim never works on the live machine, however its root is named.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create grace-2s "$T/g" > /dev/null
tree_sum() { (cd "$1" && find . -type f ! -path ./run/pmukit.lock ! -path './run/pmukit/*.lock' -print0 | sort -z | xargs -0 md5sum); }
tree_sum "$T/g" > "$T/before"
event=nvidia_scf_pmu_0/cmem_rd_data/
for backend in direct auto; do
  for i in 1 2; do
    # auto sends the refused unit to perf, whose answer (no such event on the snapshot's kernel
    # PMU: a usage error) names the refusal.
    status $([ $backend = direct ] && echo 1 || echo 2) "$BIN/pmu-raw" --snapshot "$T/g" --backend "$backend" \
      -e "$event" --duration 0.1 > /dev/null 2> "$T/err"
    test "$(wc -l < "$T/err")" = 1 || { cat "$T/err" >&2; exit 1; }
    grep -qF "snapshot $T/g is a static snapshot: no pmu-sim runs on it" "$T/err" || { cat "$T/err" >&2; exit 1; }
    grep -qF "start 'pmu-sim run $T/g' first" "$T/err"
  done
done
printf '{"listen": "127.0.0.1:0", "events": ["%s"]}\n' "$event" > "$T/exporter.json"
status 2 "$BIN/pmu-exporter" --snapshot "$T/g" --config "$T/exporter.json" > /dev/null 2> "$T/err"
grep -qF "start 'pmu-sim run $T/g' first" "$T/err" || { cat "$T/err" >&2; exit 1; }
tree_sum "$T/g" > "$T/after"
diff "$T/before" "$T/after"
# With pmu-sim running, the same command counts, and the registers are back afterwards.
sim_start "$T/g"
"$BIN/pmu-raw" --snapshot "$T/g" --backend direct -e "$event" -x, -- "$BIN/pmu-sim" advance "$T/g" 100 > "$T/out"
grep -q ",$event" "$T/out"
stop_background
tree_sum "$T/g" > "$T/after"
diff "$T/before" "$T/after"

# pmu-sim and the live machine: run, advance and create refuse /, a link to it and --snapshot-like
# spellings of it before reading anything.
ln -s / "$T/root"
for dir in / "$T/root" /./; do
  for cmd in run advance; do
    args=("$cmd" "$dir")
    [ "$cmd" = advance ] && args+=(10)
    status 1 "$BIN/pmu-sim" "${args[@]}" 2> "$T/err"
    grep -qxF "pmu-sim: error: $dir: is this machine's root (the live machine): pmu-sim $cmd works on snapshots only, never on this machine's registers ('pmu-sim create MACHINE DIR' writes one)" "$T/err" ||
      { cat "$T/err" >&2; exit 1; }
  done
done
status 1 "$BIN/pmu-sim" create spr-2s / 2> "$T/err"
grep -qF "pmu-sim: error: /: is this machine's root (the live machine): pmu-sim create works on snapshots only" "$T/err"
