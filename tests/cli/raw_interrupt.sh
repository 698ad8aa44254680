# Ctrl-C during `pmu-raw -I` on this machine's real perf PMUs (the software PMU every kernel has):
# one last, partial interval is printed, as perf stat -I prints it, and no second one after it
# (there was: the interrupted wait printed the partial interval, and the end of the run printed
# the microseconds between that print and the counters' stop as one more). The interval is long,
# so every row printed is the partial one. The exit status is perf stat's: 130, the signal's.
. "$(dirname "$0")/common.sh"

interrupted() {
  # A new stderr file each run: the wait below must not find the last run's announcement before
  # this run's redirection has emptied the file (the signal would then come before its handler).
  rm -f "$T/out" "$T/err"
  "$BIN/pmu-raw" -e cpu-clock -e software/config=3,name=cs/ -I 600000 -x, "$@" > "$T/out" 2> "$T/err" &
  local pid=$!
  # Signals are caught from before the backend is announced (pmu-raw/counting.cpp).
  for ((i = 0; i < 6000; i++)); do grep -qs 'perf_event_open' "$T/err" && break; sleep 0.01; done
  grep -q 'perf_event_open' "$T/err"
  kill -INT "$pid"
  # Ended by the signal, once the registers are restored and the counts printed: 130, as perf stat.
  status 130 wait "$pid"
}

for extra in "" "--interval-count 3"; do
  # shellcheck disable=SC2086 # the options are words
  interrupted $extra
  cat "$T/out"
  test "$(grep -c ',cpu-clock' "$T/out")" -eq 1
  test "$(grep -c ',cs' "$T/out")" -eq 1
  test "$(wc -l < "$T/out")" -eq 2
done
