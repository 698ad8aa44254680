# pmu-report's page as a browser shows it: headless Chromium (Debian's chromium, in
# scripts/install-deps.sh) renders a report of a real pmu-raw run on pmu-sim; its DOM holds one
# chart per event and metric of the input, and its screenshot is not blank: the series' colours
# (read from the DOM) cover at least a 2-pixel line across each chart. Skipped without chromium.
. "$(dirname "$0")/common.sh"
CHECK="python3 $(dirname "$0")/report_check.py"
CHROMIUM=$(command -v chromium || true)
[ -x /usr/lib/chromium/chromium ] && CHROMIUM=/usr/lib/chromium/chromium  # the binary, without its launcher script
[ -n "$CHROMIUM" ] || skip "chromium is not installed"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
"$BIN/pmu-raw" --snapshot "$T/spr" -j -I 500 --interval-count 8 --per-socket -e uncore_imc/cas_count_read/ \
  -M spr_dram_write_bw -o "$T/run.jsonl" 2> /dev/null
"$BIN/pmu-report" "$T/run.jsonl" -o "$T/report.html"
charts=$(grep -c '<figure class="plot"' "$T/report.html")
height=$((600 + 360 * charts))  # a window tall enough for every chart
"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$T/profile" --hide-scrollbars \
  --window-size=1100,$height --screenshot="$T/shot.png" --dump-dom \
  "file://$T/report.html" > "$T/dom.html" 2> "$T/chromium.err" || { tail -5 "$T/chromium.err"; exit 1; }
$CHECK plots "$T/run.jsonl" "$T/dom.html"
test "$charts" -ge 2  # cas_count_read and spr_dram_write_bw (cas_count_write, its input alone, is not charted again)
colours=$(grep -o '<path class="series" d="[^"]*" fill="none" stroke="#[0-9a-f]*"' "$T/dom.html" | sed 's/.*stroke="//; s/"$//' | sort -u)
read -r width hgt ink series <<< "$($CHECK png "$T/shot.png" $colours | awk '{s = 0; for (i = 4; i <= NF; i++) s += $i; print $1, $2, $3, s}')"
echo "screenshot ${width}x${hgt}: $ink non-white pixels, $series in the series' colours, $charts charts"
test "$width" = 1100 && test "$hgt" = "$height"
test "$ink" -gt $((width * hgt / 50))  # text, axes, grid and lines: more than 2% of the page
# A 2-pixel line across an 860-pixel chart is at least ~800 pixels of exactly its colour (the rest
# is antialiased); the legend keys and table swatches add about 150 a series.
test "$series" -gt $((500 * charts))
# Both sockets carry the same modelled traffic, so their lines coincide: each colour still shows
# along them (alternating dashes), not just in the legend and the table (about 150 pixels a chart
# when the last line drawn hides the first).
for colour in $colours; do
  pixels=$($CHECK png "$T/shot.png" "$colour" | awk '{print $4}')
  echo "$colour: $pixels pixels"
  test "$pixels" -gt $((350 * charts))
done
