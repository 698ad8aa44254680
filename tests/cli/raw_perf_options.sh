# perf stat's aggregation, CPU and repeat options on pmu-raw (issue 35 point 3), on a pmu-sim spr-2s
# (2 sockets of one die and 4 CPUs, NUMA node = socket), under virtual time so counts are exact:
#   - -A / --no-aggr: one line per CPU counted on (CPU0, CPU4: each socket's IMCs count from its
#     first CPU), as perf stat -A shows an uncore PMU; --per-box / --no-merge: one line per unit;
#   - --per-die (S0-D0) and --per-node (N0) sum the units of each, the node read from the machine
#     root's /sys/devices/system/node (moving the CPUs between nodes moves the lines);
#   - -C LIST: only the units counted from those CPUs (a unit counts from its die's first CPU);
#   - --metric-only: with -M, the metrics' lines alone;
#   - -r N: N runs, each count's mean, "(N runs)", the elapsed mean +- its standard error, and the
#     last run's exit status; in CSV and JSON the spread as perf stat -x/-j print it (a variance
#     field after the event, "variance" in JSON);
#   - the usage errors of these options, each with the tool's prefix and exit 2.
. "$(dirname "$0")/common.sh"

"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
raw() { "$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_imc/cas_count_read/ --duration 0.5 "$@" 2> "$T/err"; }
# value GROUP FILE: the CSV count of the line of GROUP ("S0", "N1", "uncore_imc_3"), after the
# aggregate-number of a socket's, die's or node's line.
value() { sed -nE "s|^$1,([0-9]+,)?([0-9.]+),MiB,uncore_imc/cas_count_read/,.*|\2|p" "$2"; }
# units GROUP FILE: the aggregate-number of GROUP's line (perf stat's field after the socket).
units() { sed -nE "s|^$1,([0-9]+),[0-9.]+,MiB,uncore_imc/cas_count_read/,.*|\1|p" "$2"; }

raw -x, --per-socket > "$T/socket"
s0=$(value S0 "$T/socket")
s1=$(value S1 "$T/socket")
test -n "$s0" && test -n "$s1"
# perf stat --per-socket's aggregate-number after the socket: the 8 IMC units each line sums.
test "$(units S0 "$T/socket")" = 8 && test "$(units S1 "$T/socket")" = 8
raw -j --per-socket > "$T/socket.json"
grep -q '^{"socket":"S1","aggregate-number":8,"counter-value":"' "$T/socket.json"
raw -x, > "$T/merged"
total=$(sed -nE 's|^([0-9.]+),MiB,uncore_imc/cas_count_read/,.*|\1|p' "$T/merged")

# --per-box and --no-merge: a line per unit.
raw -x, --per-box > "$T/box"
test "$(grep -c ',MiB,' "$T/box")" -eq 8
grep -qE '^uncore_imc_0,[0-9.]+,MiB,' "$T/box"  # no aggregate-number: perf's --no-merge has none
raw -x, --no-merge > "$T/A"
diff "$T/box" "$T/A"
# -A and --no-aggr: a line per CPU the units count from, as perf stat -A (CPU0 and CPU4 here).
raw -x, -A > "$T/A"
cat "$T/A"
test "$(grep -c ',MiB,' "$T/A")" -eq 2
test "$(value CPU0 "$T/A")" = "$s0"
test "$(value CPU4 "$T/A")" = "$s1"
raw -x, --no-aggr > "$T/noaggr"
diff "$T/A" "$T/noaggr"
raw -j -A > "$T/A.json"
grep -q '^{"cpu":"4","counter-value":' "$T/A.json"
raw -A > "$T/A.txt"
grep -qE '^CPU4 {7}[ 0-9,.]+ MiB +uncore_imc/cas_count_read/$' "$T/A.txt"
# ...with -C, the CPUs listed.
raw -x, -A -C 4 > "$T/A"
test "$(grep -c ',MiB,' "$T/A")" -eq 1
test "$(value CPU4 "$T/A")" = "$s1"

# --per-die: one die per socket here, S<socket>-D<die>.
raw -x, --per-die > "$T/die"
cat "$T/die"
test "$(grep -c ',MiB,' "$T/die")" -eq 2
test "$(value S0-D0 "$T/die")" = "$s0"
test "$(value S1-D0 "$T/die")" = "$s1"
raw -j --per-die > "$T/die.json"
grep -q '^{"die":"S1-D0","aggregate-number":8,"counter-value":"' "$T/die.json"
test "$(units S0-D0 "$T/die")" = 8

# --per-node: the nodes pmu-sim wrote (node N = socket N)...
raw -x, --per-node > "$T/node"
cat "$T/node"
test "$(value N0 "$T/node")" = "$s0"
test "$(value N1 "$T/node")" = "$s1"
test "$(units N1 "$T/node")" = 8
# ...read from the machine root: every CPU on node 1 and none on node 0 puts both sockets' units on N1.
nodes=$T/spr/sys/devices/system/node
echo 0-7 > "$nodes/node1/cpulist"
echo > "$nodes/node0/cpulist"
raw -x, --per-node > "$T/node"
cat "$T/node"
test "$(grep -c ',MiB,' "$T/node")" -eq 1
test "$(value N1 "$T/node")" = "$total"
test "$(units N1 "$T/node")" = 16
echo 0-3 > "$nodes/node0/cpulist"
echo 4-7 > "$nodes/node1/cpulist"

# -C: socket 1's units count from CPU 4, socket 0's from CPU 0.
raw -x, --per-socket -C 4 > "$T/cpu"
cat "$T/cpu"
test "$(grep -c ',MiB,' "$T/cpu")" -eq 1
test "$(value S1 "$T/cpu")" = "$s1"
raw -x, --per-socket --cpu 0-3 > "$T/cpu"
test "$(grep -c ',MiB,' "$T/cpu")" -eq 1
test "$(value S0 "$T/cpu")" = "$s0"
raw -x, -C 0,4 > "$T/cpu"
diff "$T/merged" "$T/cpu"
status 2 raw -C 1-3
grep -qx 'pmu-raw: error: -C 1-3: no PMU unit here counts from these CPUs (uncore units count from CPUs 0,4)' "$T/err"
status 2 raw -C x
grep -qx "pmu-raw: error: -C 'x': expected a CPU list such as 0-3,8" "$T/err"

# -r: three runs of exactly 0.5 modelled seconds each count the same: the mean is one run's count,
# with no spread printed, and the elapsed time's standard error is 0.
raw -x, -r 3 > "$T/r"
sed -E 's|(,uncore_imc/cas_count_read/,)|\10.00%,|' "$T/merged" | diff - "$T/r"
raw -j -r 3 > "$T/r.json"
grep -q '"event":"uncore_imc/cas_count_read/","variance":0.0,"event-runtime":' "$T/r.json"
raw -r 3 > "$T/r"
cat "$T/r"
grep -q "^ Performance counter stats for 'system wide' (3 runs):$" "$T/r"
grep -qE '^ +0\.500000000 \+- 0\.000000000 seconds time elapsed$' "$T/r"
not grep -q '( +-' "$T/r"
# ...with a workload, the exit status is the last run's, as perf stat's.
status 3 raw -r 2 -- sh -c 'exit 3' > "$T/r"
grep -q "(2 runs):$" "$T/r"

status 2 raw -r 2 -I 100
grep -qx 'pmu-raw: error: -r does not go with -I: a repeated run reports its mean at the end' "$T/err"
status 2 "$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_imc/cas_count_read/ -r 2 2> "$T/err"
grep -q '^pmu-raw: error: -r repeats a command, --duration or --timeout' "$T/err"
status 2 raw -r 0
grep -q "^pmu-raw: error: --repeat: '0' is not a whole number from 1 to " "$T/err"
status 2 raw --per-die -M spr_dram_read_bw
grep -q '^pmu-raw: error: --per-die, --per-node and -A show events' "$T/err"
status 2 raw -A -M spr_dram_read_bw
grep -q '^pmu-raw: error: --per-die, --per-node and -A show events' "$T/err"
status 2 raw --per-die --per-node
grep -q '^pmu-raw: error: --per-socket, --per-die, --per-node, -A (--no-aggr), --per-box, --per-device and --per-stack are exclusive$' "$T/err"
# --metric-only: the metric's line as without it, and no event lines.
raw -x, -M spr_dram_read_bw --metric-only > "$T/metric"
cat "$T/metric"
raw -x, -M spr_dram_read_bw > "$T/all"
test "$(grep -c . "$T/metric")" -eq 1
grep spr_dram_read_bw "$T/all" | diff - "$T/metric"
grep -q ',MiB,uncore_imc/cas_count_read/,' "$T/all"
status 2 raw --metric-only
grep -qx 'pmu-raw: error: --metric-only prints metrics: give -M METRIC' "$T/err"
# A CLI11 parse error reads as every other error of the tool.
status 2 raw --repeats 2
grep -qx 'pmu-raw: error: The following argument was not expected: --repeats' "$T/err"
echo "-A, --per-die, --per-node, -C, -r and --metric-only as perf stat's"
