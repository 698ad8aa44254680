# pmu-report on what a user runs first (issue 35 point 7): both sockets of spr-2s under pmu-sim
# with the same modelled traffic, -M dram_read_bw --per-socket.
#   - lines with the same values stay distinguishable: the second is dashed over the first in
#     the gaps of its dashes, markers are concentric rings, the legend says which it coincides
#     with; lines that differ stay solid, lines that meet in places say so;
#   - an event pmu-raw counted only for a metric (its JSON says "metric-input") is not charted or
#     tabulated again beside the metric (the page names it; --inputs charts it); one given with -e is;
#   - one unit system: the event's MiB and the metric's GB/s both show as decimal GB/s (51.20 GB/s
#     per socket: 8 boxes x 1e8 CAS/s x 64 bytes), the axis says what a GB is, and no GiB anywhere.
. "$(dirname "$0")/common.sh"
CHECK="python3 $(dirname "$0")/report_check.py"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
"$BIN/pmu-raw" --snapshot "$T/spr" -M dram_read_bw --per-socket -I 1000 -j -o "$T/run.json" -- \
  "$BIN/pmu-sim" advance "$T/spr" 5000 2> /dev/null
# pmu-raw marks the events it counted only for the metric, and only those.
test "$(grep -c '"event":"uncore_imc/cas_count_read/".*"metric-input":\["dram_read_bw"\]' "$T/run.json")" = 10
"$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_imc/cas_count_read/ -M dram_read_bw --per-socket -I 1000 -j \
  -o "$T/asked.json" -- "$BIN/pmu-sim" advance "$T/spr" 2000 2> /dev/null
grep -q '"event":"uncore_imc/cas_count_read/"' "$T/asked.json"
not grep -q metric-input "$T/asked.json"

"$BIN/pmu-report" "$T/run.json" -o "$T/run.html"
$CHECK plots "$T/run.json" "$T/run.html"
$CHECK summary "$T/run.json" "$T/run.html"
test "$(grep -c '<figure class="plot"' "$T/run.html")" = 1  # the metric; its input not again
grep -q '<figure class="plot" id="plot-1" data-kind="metric">' "$T/run.html"
not grep -q '<a href="#plot-[0-9]*">uncore_imc/cas_count_read/</a>' "$T/run.html"
grep -q 'Not charted again: uncore_imc/cas_count_read/ (for dram_read_bw), counted only as the input of the metric' "$T/run.html"
# Coinciding lines: S0 solid, S1 dashed over it (8 px dashes where S0's show), rings for markers.
paths=$(grep -o '<path class="series"[^>]*>' "$T/run.html")
test "$(wc -l <<< "$paths")" = 2
head -1 <<< "$paths" | grep -q 'stroke="#1f77b4" stroke-width="2" stroke-linejoin="round">'
tail -1 <<< "$paths" | grep -q 'stroke="#d62728" stroke-width="2" stroke-linejoin="round" stroke-dasharray="8 8" stroke-dashoffset="8">'
test "$(grep -o '<circle [^>]*r="4.4" fill="#1f77b4"' "$T/run.html" | wc -l)" = 5
test "$(grep -o '<circle [^>]*r="1.8" fill="#d62728"' "$T/run.html" | wc -l)" = 5
grep -q '<text x="[0-9.]*" y="[0-9.]*">S1 uncore_imc (same values as S0 uncore_imc)</text>' "$T/run.html"
# One unit system: GB/s in the table and on the axis, which says what a GB is.
grep -q '>S0 uncore_imc</td><td>GB/s</td><td class="num">51.20</td>' "$T/run.html"
grep -q 'text-anchor="middle">GB/s (1 GB = 10⁹ bytes)</text>' "$T/run.html"
not grep -q GiB "$T/run.html"

# --inputs: the event too, in the metric's unit: the same traffic, the same number.
"$BIN/pmu-report" --inputs "$T/run.json" -o "$T/inputs.html"
$CHECK --inputs plots "$T/run.json" "$T/inputs.html"
$CHECK --inputs summary "$T/run.json" "$T/inputs.html"
test "$(grep -c '<figure class="plot"' "$T/inputs.html")" = 2
grep -q '>S0</td><td>GB/s</td><td class="num">51.20</td><td class="num">51.20</td><td class="num">51.20</td><td class="num">256.0 GB</td>' "$T/inputs.html"
grep -q '<text x="[0-9.]*" y="[0-9.]*">S1 (same values as S0)</text>' "$T/inputs.html"
not grep -q 'Not charted again' "$T/inputs.html"
not grep -q GiB "$T/inputs.html"
# An event given with -e is charted beside the metric.
"$BIN/pmu-report" "$T/asked.json" -o "$T/asked.html"
test "$(grep -c '<figure class="plot"' "$T/asked.html")" = 2

# Lines that differ stay solid and unannotated; lines that meet in places say so.
sed '/"socket":"S1","metric-value"/s/"51.200"/"25.600"/' "$T/run.json" > "$T/apart.json"
"$BIN/pmu-report" "$T/apart.json" -o "$T/apart.html"
not grep -q 'stroke-dasharray' "$T/apart.html"
not grep -qE 'same values|in places' "$T/apart.html"
grep -q '<circle [^>]*r="2.8" fill="#d62728"' "$T/apart.html"
sed '/"interval":[45].0,"socket":"S1","metric-value"/s/"51.200"/"25.600"/' "$T/run.json" > "$T/meet.json"
"$BIN/pmu-report" "$T/meet.json" -o "$T/meet.html"
grep -q '>S1 uncore_imc (meets S0 uncore_imc in places)</text>' "$T/meet.html"
grep -q 'stroke="#d62728" [^>]*stroke-dasharray="8 8"' "$T/meet.html"
echo "report views: coinciding series distinguishable, metric inputs once, decimal units"
