# perf stat -A and -C on AMD's L3 PMU (issue 35 point 3), on a pmu-sim genoa-2s under virtual time:
# Linux's amd_uncore has one amd_l3 PMU whose cpumask names one CPU per CCX (its first), and counts
# each CCX's L3 from that CPU. So, as perf stat -A prints it:
#   - -A: one line per CCX, CPU0, CPU4, ... CPU92 (2 sockets of 12 CCXs of 4 CPUs), each that L3's
#     count; they add up to the merged count;
#   - -C 0,8: only the L3s of the CCXs counted from CPUs 0 and 8 (two lines with -A, one merged);
#   - --per-socket with a metric: no line for a socket the metric's PMU is not on (not a 0.000):
#     with -C on one socket's CPUs, and for amd_umc_N, each on one socket.
. "$(dirname "$0")/common.sh"

"$BIN/pmu-sim" create genoa-2s "$T/genoa" > /dev/null
sim_start "$T/genoa"
raw() { "$BIN/pmu-raw" --snapshot "$T/genoa" -e amd_l3/l3_lookup_state.l3_hit/ --duration 0.5 "$@" 2> "$T/err"; }
# count GROUP FILE: the CSV count of GROUP's line (after the aggregate-number of a socket's line).
count() { sed -nE "s|^$1,([0-9]+,)?([0-9]+),,amd_l3/l3_lookup_state.l3_hit/,.*|\2|p" "$2"; }

raw -x, > "$T/merged"
total=$(sed -nE 's|^([0-9]+),,amd_l3/l3_lookup_state.l3_hit/,.*|\1|p' "$T/merged")
test -n "$total"

raw -x, -A > "$T/A"
cat "$T/A"
cut -d, -f1 "$T/A" | diff - <(seq 0 4 92 | sed 's/^/CPU/')
test "$(cut -d, -f2 "$T/A" | paste -sd+ | bc)" = "$total"
ccx0=$(count CPU0 "$T/A")
test "$(count CPU8 "$T/A")" = "$ccx0"
test "$((24 * ccx0))" = "$total"

raw -x, -A -C 0,8 > "$T/A"
cat "$T/A"
cut -d, -f1 "$T/A" | diff - <(printf 'CPU0\nCPU8\n')
raw -x, -C 0,8 > "$T/C"
test "$(sed -nE 's|^([0-9]+),,amd_l3/.*|\1|p' "$T/C")" = "$((2 * ccx0))"
raw -x, --per-socket -C 48 > "$T/S"
cut -d, -f1 "$T/S" | diff - <(echo S1)
test "$(count S1 "$T/S")" = "$ccx0"
grep -q '^S1,1,' "$T/S"  # perf stat's aggregate-number: the one L3 (CCX) of CPU 48 summed
status 2 raw -C 1-3
grep -q '^pmu-raw: error: -C 1-3: no PMU unit here counts from these CPUs' "$T/err"

# A metric per socket, its L3s on socket 0 only: socket 0's line, none for socket 1.
"$BIN/pmu-raw" --snapshot "$T/genoa" -M amd_l3_miss_ratio --per-socket -C 0,4 --duration 0.5 -x, > "$T/M" 2> "$T/err"
cat "$T/M"
grep -q '^S0,.*amd_l3_miss_ratio' "$T/M"
not grep -q '^S1,' "$T/M"
# A per-channel metric per socket: amd_umc_N is on one socket (numbered across them), so one line
# each, under its socket, and no 0.000 line for the other.
"$BIN/pmu-raw" --snapshot "$T/genoa" -M amd_umc_read_bw --per-socket --duration 0.5 -x, > "$T/M" 2> "$T/err"
grep 'amd_umc_read_bw' "$T/M" | tee "$T/umc"
# As many lines as channels: the merged report's lines, one per amd_umc_N.
umcs=$("$BIN/pmu-raw" --snapshot "$T/genoa" -M amd_umc_read_bw --duration 0.5 -x, 2> /dev/null | grep -c 'amd_umc_read_bw')
test "$umcs" -gt 2
test "$(wc -l < "$T/umc")" -eq "$umcs"
not grep -q ',0\.000,' "$T/umc"
grep -q '^S0,,,amd_umc_read_bw (amd_umc_0),' "$T/umc"
grep -q '^S1,,,amd_umc_read_bw (amd_umc_12),' "$T/umc"
echo "-A and -C on AMD's L3: a line per CCX, as perf stat -A"
