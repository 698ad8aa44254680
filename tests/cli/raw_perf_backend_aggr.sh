# perf stat's -A, --per-socket's aggregate-number, -C with --per-socket, and -r's spread in CSV and JSON, on this machine's real
# perf PMUs (the msr PMU's tsc, which has no cpumask: perf counts it on every online CPU), with
# perf stat's output shapes (issue 35 point 3):
#   - -A: one line per CPU, "CPU0" first (CSV "CPU0,count,...", JSON "cpu":"0"), as perf stat -A;
#     with -C, the CPUs listed only;
#   - --per-socket -C N: one line, the socket of CPU N;
#   - -r N -x,: the spread after the event ("12.34%"), as perf stat -r -x prints it; -j: "variance".
# Where perf is installed, its lines for the same options have the same fields (the first field
# and the field count, not the counts, which differ from run to run).
. "$(dirname "$0")/common.sh"

[ -e /sys/bus/event_source/devices/msr/type ] || skip "no msr PMU on this machine"
raw() { "$BIN/pmu-raw" --backend perf -e msr/tsc/ "$@" -- true 2> "$T/err"; }
raw -x, > "$T/probe" || { cat "$T/err"; skip "perf_event_open refused here"; }

# The online CPUs, as perf -A lists them.
online=$(tr ',' '\n' < /sys/devices/system/cpu/online | while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done)
ncpu=$(echo "$online" | wc -l)
first=$(echo "$online" | head -1)
last=$(echo "$online" | tail -1)

raw -x, -A > "$T/A"
cat "$T/A"
test "$(grep -c ',msr/tsc/,' "$T/A")" -eq "$ncpu"
cut -d, -f1 "$T/A" | diff - <(echo "$online" | sed 's/^/CPU/')
grep -qE "^CPU$first,[0-9]+,,msr/tsc/,[0-9]+,100.00,,$" "$T/A"
raw -x, -A -C "$last" > "$T/A"
test "$(cut -d, -f1 "$T/A")" = "CPU$last"
raw -j -A -C "$last" > "$T/A.json"
grep -q "^{\"cpu\":\"$last\",\"counter-value\":\"[0-9]*.000000\",\"unit\":\"\",\"event\":\"msr/tsc/\"," "$T/A.json"
raw -A -C "$first" > "$T/A.txt"
grep -qE "^CPU$first +[0-9,]+ +msr/tsc/$" "$T/A.txt"

# --per-socket with -C: the socket of the CPU listed.
socket=$(cat /sys/devices/system/cpu/cpu"$last"/topology/physical_package_id)
raw -x, --per-socket -C "$last" > "$T/S"
test "$(grep -c ',msr/tsc/,' "$T/S")" -eq 1
grep -qE "^S$socket,1,[0-9]+,,msr/tsc/," "$T/S"
# --per-socket: how many CPUs each socket's line sums after the socket (perf stat's
# aggregate-number), msr/tsc/ counting on every online CPU; in JSON "aggregate-number".
for c in $online; do cat /sys/devices/system/cpu/cpu"$c"/topology/physical_package_id; done | sort -n | uniq -c |
  awk '{ print "S" $2 "," $1 }' > "$T/sockets"
raw -x, --per-socket > "$T/S"
cat "$T/S"
cut -d, -f1,2 "$T/S" | diff "$T/sockets" -
raw -j --per-socket > "$T/S.json"
first_socket=$(head -1 "$T/sockets")
grep -q "^{\"socket\":\"${first_socket%,*}\",\"aggregate-number\":${first_socket#*,},\"counter-value\":\"" "$T/S.json"

# -r: the spread's field after the event in CSV, "variance" in JSON.
raw -x, -r 3 > "$T/r"
cat "$T/r"
grep -qE '^[0-9]+,,msr/tsc/,[0-9]+\.[0-9]{2}%,[0-9]+,100\.00,,$' "$T/r"
raw -j -r 3 > "$T/r.json"
grep -qE '^\{"counter-value":"[0-9]+\.000000","unit":"","event":"msr/tsc/","variance":[0-9.]+,"event-runtime":[0-9]+,' "$T/r.json"

# perf's own lines for the same options: the same first field and number of fields.
if command -v perf > /dev/null && perf stat -a -x, -e msr/tsc/ -- true > /dev/null 2>&1; then
  fields() { awk -F, '{ print $1 "/" NF }' "$1"; }
  count() { awk -F, '{ print NF }' "$1"; }
  perf stat -a -x, -A -e msr/tsc/ -- true 2> "$T/perf"
  raw -x, -A > "$T/ours"
  diff <(fields "$T/perf") <(fields "$T/ours")
  # --per-socket: the socket, its aggregate-number (the CPUs summed) and the field count as perf's.
  perf stat -a -x, --per-socket -e msr/tsc/ -- true 2> "$T/perf"
  raw -x, --per-socket > "$T/ours"
  head1() { awk -F, '{ print $1 "," $2 "/" NF }' "$1"; }
  diff <(head1 "$T/perf") <(head1 "$T/ours")
  perf stat -a -x, -r 3 -e msr/tsc/ -- true 2> "$T/perf"
  raw -x, -r 3 > "$T/ours"
  # perf's variance field is the fourth, as ours.
  diff <(count "$T/perf") <(count "$T/ours")
  cut -d, -f4 "$T/perf" | grep -qE '^[0-9]+\.[0-9]{2}%$'
fi
echo "-A, -C with --per-socket and -r's spread on the perf backend, as perf stat's"
