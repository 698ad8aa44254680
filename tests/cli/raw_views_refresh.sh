# pmu-raw --memory --refresh (pcm's screen mode): on a terminal each interval's table is drawn after
# clearing the screen (ANSI CSI H, CSI 2 J); to a pipe every interval is printed plainly. The
# terminal is script(1)'s pseudo-terminal; pmu-sim's virtual time keeps the run short.
. "$(dirname "$0")/common.sh"
command -v script > /dev/null || skip "script(1) (util-linux) is not installed"
"$BIN/pmu-sim" create clx-2s "$T/clx" > /dev/null
sim_start "$T/clx"
script -qec "'$BIN/pmu-raw' --snapshot '$T/clx' --memory --refresh --duration 2 2> /dev/null" /dev/null > "$T/tty"
test "$(grep -o $'\e\\[H\e\\[2J' "$T/tty" | wc -l)" = 2
test "$(grep -c 'memory bandwidth, MB/s' "$T/tty")" = 2
"$BIN/pmu-raw" --snapshot "$T/clx" --memory --refresh --duration 2 2> /dev/null > "$T/pipe"
not grep -q $'\e' "$T/pipe"
test "$(grep -c 'memory bandwidth, MB/s' "$T/pipe")" = 2
# Not without a view.
status 2 "$BIN/pmu-raw" --snapshot "$T/clx" --refresh -M dram_read_bw --duration 1 2> /dev/null
