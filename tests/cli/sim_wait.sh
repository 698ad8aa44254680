# pmu-sim wait DIR: returns once a pmu-sim run serves DIR, so that the next command counts on it
# (the README's `pmu-sim run DIR &` then `pmu-sim wait DIR`); fails, naming why, when none does
# within --timeout: no clock page, or the page of a pmu-sim that is gone.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create grace-2s "$T/g" > /dev/null
status 1 "$BIN/pmu-sim" wait "$T/g" --timeout 0.05 2> "$T/err"
grep -q "^pmu-sim: error: snapshot $T/g: no pmu-sim serves it after 0.05 s (no clock page)$" "$T/err" || { cat "$T/err" >&2; exit 1; }
status 2 "$BIN/pmu-sim" wait "$T/g" --timeout 0 2> /dev/null
# Started in the background and waited for: the first request is served (pmu-sim now, advance).
"$BIN/pmu-sim" run "$T/g" > /dev/null &
SIM_PIDS+=($!)
trap 'stop_background; rm -rf "$T"' EXIT
"$BIN/pmu-sim" wait "$T/g"
"$BIN/pmu-sim" advance "$T/g" 5ms
test "$("$BIN/pmu-sim" now "$T/g")" = 5000000
# A page left by a pmu-sim killed with SIGKILL (its lock went with it) is no simulator.
kill -KILL "${SIM_PIDS[-1]}"
wait "${SIM_PIDS[-1]}" 2> /dev/null || true
SIM_PIDS=()
test -e "$T/g/run/pmukit-sim/clock"
status 1 "$BIN/pmu-sim" wait "$T/g" --timeout 0.05 2> "$T/err"
grep -q "no pmu-sim serves it after 0.05 s (.*is gone" "$T/err" || { cat "$T/err" >&2; exit 1; }
# ... until a new one replaces it.
"$BIN/pmu-sim" run "$T/g" > /dev/null &
SIM_PIDS+=($!)
"$BIN/pmu-sim" wait "$T/g"
test "$("$BIN/pmu-sim" now "$T/g")" = 0
echo ok
