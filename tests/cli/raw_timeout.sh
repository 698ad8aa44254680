# pmu-raw --timeout and -v, as perf stat's (issue 35 point 3):
#   - without a workload, --timeout MS counts MS milliseconds: exactly, on a snapshot under pmu-sim's
#     virtual time (duration_time is the nanoseconds counted);
#   - a workload still running at the timeout is sent SIGTERM and the counts are printed; exit 0 when
#     the signal ended it, its own status when it caught the signal (perf stat: 3 for `exit 3`);
#   - --timeout below 10 ms, with -I or with --duration: usage errors;
#   - -v prints each unit's counter (EVENT: PMU: raw enabled running) on stderr before the report.
. "$(dirname "$0")/common.sh"

"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
"$BIN/pmu-raw" --snapshot "$T/spr" -x, -e duration_time -e uncore_imc/cas_count_read/ --timeout 250 -v \
  > "$T/out" 2> "$T/err"
grep -qx '250000000,ns,duration_time,250000000,100.00,,' "$T/out"
# -v: one line per IMC box (2 sockets x 8), each enabled and running for the 250 ms.
test "$(grep -cE '^uncore_imc/cas_count_read/: uncore_imc_[0-7]: [0-9]+ 250000000 250000000$' "$T/err")" -eq 16
# ...and their raw counts add up to the report's count (scaled to MiB there: 64 bytes each).
sum=$(sed -nE 's/^uncore_imc\/cas_count_read\/: uncore_imc_[0-7]: ([0-9]+) .*/\1/p' "$T/err" | paste -sd+ | bc)
mib=$(grep ',uncore_imc/cas_count_read/,' "$T/out" | cut -d, -f1)
test "$(echo "scale=2; $sum * 64 / 1048576" | bc)" = "$mib"

# A workload on this machine's software PMU, stopped by the timeout. It would run 60 s (then exit 9).
cat > "$T/workload.sh" << WORKLOAD
trap 'echo TERM > "$T/term"; exit 3' TERM
i=0
while [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done
exit 9
WORKLOAD
status 3 "$BIN/pmu-raw" -e cpu-clock --timeout 200 -x, -- sh "$T/workload.sh" > "$T/out" 2> "$T/err"
grep -qx TERM "$T/term"
grep -q ',msec,cpu-clock,' "$T/out"
rm "$T/term"
status 0 "$BIN/pmu-raw" -e cpu-clock --timeout 200 -x, -- sleep 60 > "$T/out" 2> "$T/err"
grep -q ',msec,cpu-clock,' "$T/out"

status 2 "$BIN/pmu-raw" -e cpu-clock --timeout 5 2> "$T/err"
grep -q "^pmu-raw: error: --timeout: '5' is not a whole number from 10 to " "$T/err"
status 2 "$BIN/pmu-raw" -e cpu-clock --timeout 100 -I 50 2> "$T/err"
grep -qx 'pmu-raw: error: --timeout does not go with -I (as perf stat: one report, at the timeout)' "$T/err"
status 2 "$BIN/pmu-raw" -e cpu-clock --timeout 100 --duration 1 2> "$T/err"
grep -qx 'pmu-raw: error: --timeout and --duration both say when to stop: give one' "$T/err"
echo "--timeout and -v as perf stat's"
