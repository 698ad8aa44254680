# Intel IIO events on the counters their rule allows, end to end on the bundled spr-2s under pmu-sim:
# inbound DATA_REQ_OF_CPU (event 0x83) may use counters 0-1, outbound DATA_REQ_BY_CPU (0xc0) counters
# 2-3 (Linux uncore_snbep.c icx_uncore_iio_constraints; Intel perfmon Counter "0,1" / "2,3"). The
# simulator counts nothing for an event on a counter its rule excludes, so a misplaced event reads 0.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
# The MSR files of every CPU (SPR IIO boxes are MSR boxes), to compare after the runs.
registers() { (cd "$T/spr" && md5sum dev/cpu/*/msr); }
registers > "$T/before"
IN='event=0x83,umask=0x04,fc_mask=0x7'
OUT='event=0xc0,umask=0x01,fc_mask=0x7'
in_part() { echo "uncore_iio_2/$IN,ch_mask=$1/"; }
out_part() { echo "uncore_iio_2/$OUT,ch_mask=$1/"; }
count() { grep -F "$2" "$1" | cut -d, -f1; }  # the CSV count of the one event matching $2
# The share of the time each event was counted (perf's CSV: ...,running time,percent,,).
shares() { awk -F, '{print $(NF - 2)}' "$1" | sort -u; }
raw() { "$BIN/pmu-raw" --snapshot "$T/spr" -x, --duration 1 --mux-interval 100 "$@"; }
# Two outbound and two inbound events of one stack, outbound first: all four at once, none
# multiplexed, none reading 0 (which a misplaced event would).
raw -e "$(out_part 0x1),$(in_part 0x1),$(out_part 0x2),$(in_part 0x2)" > "$T/mixed" 2> "$T/mixed.err"
not grep -q multiplexed "$T/mixed.err"
test "$(shares "$T/mixed")" = 100.00
for e in "$OUT,ch_mask=0x1/" "$IN,ch_mask=0x1/" "$OUT,ch_mask=0x2/" "$IN,ch_mask=0x2/"; do
  test "$(count "$T/mixed" "$e")" -gt 0
done
raw -e "$(in_part 0x4)" > "$T/alone" 2> /dev/null
test "$(count "$T/alone" "$IN,ch_mask=0x4/")" -gt 0
# Three inbound events of one stack need three of counters 0-1: they take turns (two sets, each
# counted half the time), scaled back to what each counts with the counters to itself at the
# simulator's constant rates.
raw -e "$(in_part 0x1),$(in_part 0x2),$(in_part 0x4)" > "$T/three" 2> "$T/three.err"
grep -qF 'multiplexed: 2 units (uncore_iio_2), 3 events in 2 sets each' "$T/three.err"
test "$(shares "$T/three")" = 50.00
test "$(count "$T/three" "$IN,ch_mask=0x1/")" = "$(count "$T/mixed" "$IN,ch_mask=0x1/")"
test "$(count "$T/three" "$IN,ch_mask=0x2/")" = "$(count "$T/mixed" "$IN,ch_mask=0x2/")"
test "$(count "$T/three" "$IN,ch_mask=0x4/")" = "$(count "$T/alone" "$IN,ch_mask=0x4/")"
# The same three as a {...} group can never be counted: one line naming the rule, exit 2.
status 2 raw -e "{$(in_part 0x1),$(in_part 0x2),$(in_part 0x4)}" > /dev/null 2> "$T/err"
test "$(wc -l < "$T/err")" = 1
grep -qF 'share counters 0,1: event 0x83 may use only counters 0,1 (Linux uncore_snbep.c icx_uncore_iio_constraints)' \
  "$T/err"
# Every register is as it was.
registers > "$T/after"
diff "$T/before" "$T/after"
