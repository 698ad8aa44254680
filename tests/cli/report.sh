# pmu-report on real pmu-raw runs against pmu-sim (virtual time): one chart per event and metric
# with a line per socket or box, a summary table whose min / median / max agree with the input
# (report_check.py computes them on its own), run totals as bars, standard input, perf stat -j's
# records, and bad input: one line naming the file and line, exit 1, no page written.
. "$(dirname "$0")/common.sh"
CHECK="python3 $(dirname "$0")/report_check.py"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
# 2e8 reads/s per IMC box (the test's own rate): 8 boxes x 2e8 x 64-byte CAS = 102.4 GB/s per socket
# (decimal, as perf and PCM give bandwidth: never 95.37 GiB/s beside it).
sim_start "$T/spr" --rate intel_spr_imc:0xcf05=2e8
raw() { "$BIN/pmu-raw" --snapshot "$T/spr" -j "$@" 2> /dev/null; }
raw -I 1000 --interval-count 4 --per-socket -e uncore_imc/cas_count_read/ -e uncore_imc/cas_count_write/ \
  -M spr_dram_read_bw -o "$T/run.jsonl"
"$BIN/pmu-report" "$T/run.jsonl" -o "$T/run.html"
$CHECK plots "$T/run.jsonl" "$T/run.html"
$CHECK summary "$T/run.jsonl" "$T/run.html"
grep -q '<td><a href="#plot-[0-9]*">uncore_imc/cas_count_read/</a></td><td class="series"><span class="swatch" style="background:#[0-9a-f]*"></span>S0</td><td>GB/s</td><td class="num">102.4</td><td class="num">102.4</td><td class="num">102.4</td><td class="num">409.6 GB</td><td class="num">4</td>' "$T/run.html"
grep -q '>S1 uncore_imc</td><td>GB/s</td><td class="num">102.4</td>' "$T/run.html"
grep -q '4 intervals of 1.000 s (median), 4.000 s in all · backend direct · one series per socket' "$T/run.html"
# Round ticks (1, 2 or 5 x 10^n) from zero past the largest value: 102.4 GB/s -> 0, 20, ... 120.
grep -o '<text x="[0-9.]*" y="[0-9.]*" text-anchor="end">[0-9]*</text>' "$T/run.html" | sed 's/.*">//; s/<.*//' |
  head -7 | tr '\n' ' ' | grep -qx '0 20 40 60 80 100 120 '
# What a line of the input says about a count shows in the table and the chart: a lost wrap (the
# count is too low), multiplexing (perf), an interval without a value.
sed -e '1s/"backend":"direct"}/"backend":"direct","lost":true}/' -e '2s/"pcnt-running":100.0/"pcnt-running":50.0/' \
  -e '4s/"counter-value":"[0-9.]*"/"counter-value":"<not counted>"/' "$T/run.jsonl" > "$T/marked.jsonl"
"$BIN/pmu-report" "$T/marked.jsonl" -o "$T/marked.html"
grep -q '<td class="note">count too low in 1 (a counter wrapped twice between reads)</td>' "$T/marked.html"
grep -q '<title>S0 at 1.000 s: a counter wrapped more than once between reads; the count is too low</title>' "$T/marked.html"
grep -q '<td class="note">counted 50.0% of the time (multiplexed)</td>' "$T/marked.html"
grep -q '<td class="note">no value in 1</td>' "$T/marked.html"
# Self-contained: no script, nothing fetched.
not grep -qiE '<script|<link|<img|<iframe|(src|href)="[a-z]+:|url\(' "$T/run.html"
# Standard input, straight from pmu-raw: the same page but for the name of the source.
raw -I 1000 --interval-count 4 --per-socket -e uncore_imc/cas_count_read/ -e uncore_imc/cas_count_write/ \
  -M spr_dram_read_bw | "$BIN/pmu-report" - --title "$T/run.jsonl" > "$T/stdin.html"
"$BIN/pmu-report" "$T/run.jsonl" --title "$T/run.jsonl" > "$T/file.html"
diff <(grep -v '^<p class="meta">' "$T/file.html") <(grep -v '^<p class="meta">' "$T/stdin.html")
grep -qx '<p class="meta">&lt;stdin&gt;</p>' "$T/stdin.html"
# Per box: one chart per event as written, a line per box in number order.
raw -I 500 --interval-count 3 --per-box -e uncore_imc/cas_count_read/ -o "$T/box.jsonl"
"$BIN/pmu-report" "$T/box.jsonl" -o "$T/box.html"
test "$(grep -c '<figure class="plot"' "$T/box.html")" = 1
grep -q 'font-weight="bold" fill="#111">uncore_imc/cas_count_read/</text>' "$T/box.html"
test "$(grep -o '<path class="series"' "$T/box.html" | wc -l)" = 8
test "$(grep -o '<title>uncore_imc_[0-9]</title></path>' "$T/box.html" | tr -d '\n')" = \
  "$(printf '<title>uncore_imc_%d</title></path>' 0 1 2 3 4 5 6 7)"
# Run totals (no -I): a bar per socket.
raw --duration 2 --per-socket -e uncore_imc/cas_count_read/ -o "$T/totals.jsonl"
"$BIN/pmu-report" "$T/totals.jsonl" -o "$T/totals.html"
test "$(grep -o '<rect class="series"' "$T/totals.html" | wc -l)" = 2
grep -q '>S0</td><td>GB</td><td class="num">204.8</td>' "$T/totals.html"  # 2 s x 102.4 GB/s
not grep -q GiB "$T/run.html" "$T/totals.html"
# perf stat -j writes the same records (where perf and its msr PMU are here).
if perf stat -j -I 100 -e msr/tsc/ -o "$T/perf.jsonl" sleep 0.35 2> /dev/null && [ -s "$T/perf.jsonl" ]; then
  "$BIN/pmu-report" "$T/perf.jsonl" -o "$T/perf.html"
  test "$(grep -c '<figure class="plot"' "$T/perf.html")" = 1
fi
# Bad input: one line, the file and the line, exit 1, and no page.
bad() { # bad LINE-REGEX: pmu-report on $T/bad.jsonl fails with that message
  rm -f "$T/bad.html"
  status 1 "$BIN/pmu-report" "$T/bad.jsonl" -o "$T/bad.html" 2> "$T/err"
  [ "$(wc -l < "$T/err")" = 1 ] && grep -qE "^pmu-report: error: $1\$" "$T/err" && test ! -e "$T/bad.html" ||
    { echo "unexpected: $(cat "$T/err")" >&2; return 1; }
}
{ head -2 "$T/run.jsonl"; echo '{"interval": 1.0, "event": '; } > "$T/bad.jsonl"
bad "$T/bad.jsonl:3:[0-9]+: not JSON: .*"
printf '\n{"interval":1.0,"event":"uncore_imc/cas_count_read/"}\n' > "$T/bad.jsonl"
bad "$T/bad.jsonl:2: an \"event\" record without \"counter-value\""
printf '{"interval":1.0,"counter-value":"lots","event":"x"}\n' > "$T/bad.jsonl"
bad "$T/bad.jsonl:1: \"counter-value\": 'lots' is not a number"
printf '{"interval":1.0,"cpu":"0","hello":1}\n' > "$T/bad.jsonl"
bad "$T/bad.jsonl:1: neither an \"event\" nor a \"metric\" record \(expected pmu-raw -j output\)"
cat "$T/run.jsonl" "$T/run.jsonl" > "$T/bad.jsonl"
bad "$T/bad.jsonl:$(($(wc -l < "$T/run.jsonl") + 1)): interval 1 s comes after 4 s \(records out of time order: two runs in one file\?\)"
cat "$T/run.jsonl" "$T/totals.jsonl" > "$T/bad.jsonl"
bad "$T/bad.jsonl:$(($(wc -l < "$T/run.jsonl") + 1)): a run total \(no \"interval\"\) after interval records \(one pmu-raw run per file\)"
: > "$T/bad.jsonl"
bad "$T/bad.jsonl: no records \(expected pmu-raw -j output\)"
status 1 "$BIN/pmu-report" "$T/missing.jsonl" 2> "$T/err"
grep -qx "pmu-report: error: $T/missing.jsonl: No such file or directory" "$T/err"
echo 'nonsense' | status 1 "$BIN/pmu-report" - 2> "$T/err"
grep -q '^pmu-report: error: <stdin>:1:[0-9]*: not JSON: ' "$T/err"
status 2 "$BIN/pmu-report" 2> /dev/null
