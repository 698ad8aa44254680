# Sharing the machine (issue 35, point 2): tools lock PMU units, not the machine. With pmu-exporter
# counting every memory controller on pmu-sim's virtual time, pmu-raw counts every CHA at the same
# time (the user trial's command, once refused as "another pmu-raw is programming this machine"),
# and both count exactly; a unit the exporter holds is refused in one line naming the unit, the
# program and its pid, and nothing of the exporter's changes (and the exporter is refused a unit
# a pmu-raw holds, the same way); once both have ended every register
# file is as it was and no journal is left.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
tree_sum() { (cd "$1" && find . -type f ! -path './run/*' -print0 | sort -z | xargs -0 md5sum); }
tree_sum "$T/spr" > "$T/before"
# The test's own rates: 3e8 read CAS/s per memory channel, 7e8 clockticks/s per CHA.
sim_start "$T/spr" --rate intel_spr_imc:0xcf05=3e8 --rate intel_spr_cha:0x0001=7e8
chas=$("$BIN/pmu-discover" --snapshot "$T/spr" | grep -cE ' uncore_cha_[0-9]+$')
test "$chas" -gt 1
cat > "$T/imc.json" << 'EOF'
{"listen": "127.0.0.1:0", "read_interval_ms": 1000, "events": ["uncore_imc/cas_count_read/"]}
EOF
exporter_start "$T/imc.json" --snapshot "$T/spr"
# sample 'NAME{LABELS}': its value in $T/now; reads N: wait (bounded) until the exporter has read N
# times, its metrics then in $T/now.
sample() { sed -n "s/^$1 //p" "$T/now"; }
reads() {
  local i
  for ((i = 0; i < 1000; i++)); do
    curl -sS --fail "$EXPORTER/metrics" > "$T/now"
    grep -qx "pmukit_reads_total $1" "$T/now" && return 0
    sleep 0.01
  done
  echo "pmu-exporter did not read $1 times" >&2
  return 1
}
equals() { awk -v got="$1" -v want="$2" 'BEGIN { exit !(got != "" && got + 0 == want + 0) }' ||
  { echo "'$1', wanted $2" >&2; return 1; }; }
test "$(ls "$T/spr/run/pmukit/"*.journal | wc -l)" = 1  # the exporter's
# The trial's command, on units the exporter does not hold: one second of modelled time, counted
# by both. The exporter's totals are per box: 3e8 CAS x 64 bytes.
"$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_cha/event=0x1/ -x, -- "$BIN/pmu-sim" advance "$T/spr" 1000 \
  > "$T/raw.out" 2> "$T/raw.err"
grep -q "^$((chas * 700000000)),,uncore_cha/event=0x1/," "$T/raw.out" || { cat "$T/raw.out" "$T/raw.err" >&2; exit 1; }
reads 2
equals "$(sample 'pmukit_uncore_bytes_total{socket="0",pmu="uncore_imc_0",event="cas_count_read"}')" 1.92e10
equals "$(sample 'pmukit_uncore_bytes_total{socket="1",pmu="uncore_imc_4",event="cas_count_read"}')" 1.92e10
# A unit the exporter holds: one line naming it, the program and its pid; exit 1.
for event in uncore_imc_2/cas_count_read/ uncore_imc/cas_count_write/; do
  for backend in direct auto; do
    status 1 "$BIN/pmu-raw" --snapshot "$T/spr" --backend "$backend" -e uncore_cha_0/event=0x1/ -e "$event" \
      --duration 1 > /dev/null 2> "$T/err"
    test "$(wc -l < "$T/err")" = 1 || { cat "$T/err" >&2; exit 1; }
    grep -qE "^pmu-raw: error: uncore_imc_[0-9]+ is in use by pmu-exporter \(pid $EXPORTER_PID\); units no other pmukit tool holds are free to count$" \
      "$T/err" || { cat "$T/err" >&2; exit 1; }
  done
done
# The refused runs changed nothing of the exporter's: the next second counts as the first.
"$BIN/pmu-sim" advance "$T/spr" 1000
reads 3
equals "$(sample 'pmukit_uncore_bytes_total{socket="0",pmu="uncore_imc_0",event="cas_count_read"}')" 3.84e10
# --recover while the exporter runs: its journal is its own, left alone.
"$BIN/pmu-raw" --snapshot "$T/spr" --recover 2> "$T/err"
grep -qE "^pmu-raw: .*/run/pmukit/uncore_imc_[0-9]+\.journal: left alone: uncore_imc_[0-9]+ is in use by pmu-exporter \(pid $EXPORTER_PID\)$" \
  "$T/err" || { cat "$T/err" >&2; exit 1; }
kill "$EXPORTER_PID"
status 0 wait "$EXPORTER_PID"
# The other way round: a pmu-raw counting IMC 0 (its first interval printed: it holds the unit),
# and the exporter that asks for every IMC is refused, naming it.
# (A file of its own: the shell may look before the background job has truncated an old one.)
"$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_imc_0/cas_count_read/ -I 100 -x, > "$T/holder.out" 2> /dev/null &
RAW_PID=$!
SIM_PIDS+=($RAW_PID)
for ((i = 0; i < 2000; i++)); do [ -s "$T/holder.out" ] && break; sleep 0.005; done
test -s "$T/holder.out"
# Bounded: an exporter that is wrongly let in would count until killed.
status 1 timeout 60 "$BIN/pmu-exporter" --snapshot "$T/spr" --config "$T/imc.json" > /dev/null 2> "$T/err"
grep -qxF "pmu-exporter: error: uncore_imc_0 is in use by pmu-raw (pid $RAW_PID); units no other pmukit tool holds are free to count" \
  "$T/err" || { cat "$T/err" >&2; exit 1; }
kill -INT "$RAW_PID"
status 130 wait "$RAW_PID"
stop_background
tree_sum "$T/spr" > "$T/after"
diff "$T/before" "$T/after"
test -z "$(ls "$T/spr/run/pmukit/" | grep '\.journal$' || true)"
