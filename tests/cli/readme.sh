# README as tested text (issue 35): every ```sh block of README.md runs as a reader pastes it, in
# README order, into one bash session (shell variables, files and jobs carry from block to block),
# and what the README shows a block printing is checked against what it printed.
# - A block fenced ```sh no-test is not run: it needs root (apt, /etc, systemctl, sudo), hardware
#   this machine is not (live uncore PMUs, other vendors' chips), or minutes (the build, the test
#   suite, fuzzing, benchmarks).
# - The session runs from a scratch directory laid out as the repository (its entries linked,
#   build/default/tools the tools under test, also first in PATH), with HOME and TMPDIR in it; the
#   README's /tmp/ is the scratch's tmp/ (readme_blocks.py), so runs never meet.
# - Every line must succeed (errexit), and a block must stop what it starts: a job still running at
#   its end fails it. A line whose comment says "until Ctrl-C" gets SIGINT once it has printed its
#   first interval, and must end by it (130), as a reader's Ctrl-C ends it.
# - Every line of a block's example output (a ``` block after it; "..." elides) is a line of its
#   output, blanks squeezed, and every figure in its comments (a number with a decimal point or
#   thousands commas: 51.200, 35,572,420) is a word of its output: exact, as virtual time makes them.
. "$(dirname "$0")/common.sh"
SRC=${PMUKIT_SRC:?}
command -v curl > /dev/null || skip "no curl (the exporter example scrapes with it)"
# The exporter example listens on the port packaging/examples/exporter.json names.
if (exec 3<> /dev/tcp/127.0.0.1/9739) 2> /dev/null; then skip "port 9739 is in use (the exporter example's)"; fi

mkdir -p "$T/repo/build/default" "$T/home" "$T/tmp" "$T/out"
for entry in "$SRC"/*; do
  [ "$(basename "$entry")" = build ] || ln -s "$entry" "$T/repo/"
done
ln -s "$BIN" "$T/repo/build/default/tools"
blocks=$("$PYTHON" "$(dirname "$0")/readme_blocks.py" session "$SRC/README.md" "$T/tmp" "$T/out")
((blocks > 0))

# What the session runs around each block (fd 3: this script's stderr).
cat > "$T/prelude.sh" << 'END'
set -eE
trap 'echo "README block at line $BLOCK_LINE: failed: $BASH_COMMAND" >&3' ERR
# A session that fails leaves nothing running (a job would hold this test's output open).
stop_jobs() {
  local left
  left=$(jobs -p)
  [ -z "$left" ] || { kill $left 2> /dev/null || true; }
  wait
}
trap stop_jobs EXIT
block_begin() { BLOCK_LINE=$2; exec > "$OUT/$1.out" 2>&1 < /dev/null; }
# Jobs a block killed may take a moment to end; one still running after 10 s was left running. The
# ended ones are then reported (jobs), as a prompt reports them: the next block's first job is %1.
block_end() {
  local i left
  for ((i = 0; i < 1000; i++)); do
    left=$(jobs -pr)
    [ -z "$left" ] && break
    sleep 0.01
  done
  if [ -n "$left" ]; then
    echo "README block at line $BLOCK_LINE leaves running: $(jobs -r)" >&3
    kill $left
    return 1
  fi
  wait
  jobs > /dev/null
}
# The line on stdin, run as typed; SIGINT once it has printed its first interval line.
until_ctrl_c() {
  local line pid rc=0
  line=$(cat)
  (eval "exec $line") > "$OUT/ctrl_c.out" 2>&1 &
  pid=$!
  until grep -qE '^ +[0-9]+\.[0-9]{9} ' "$OUT/ctrl_c.out"; do
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.02
  done
  kill -INT "$pid"
  wait "$pid" || rc=$?
  cat "$OUT/ctrl_c.out"
  [ "$rc" -eq 130 ] || { echo "README block at line $BLOCK_LINE: '$line' ended $rc on Ctrl-C, not 130" >&3; return 1; }
}
END
cat "$T/prelude.sh" "$T/out/session.sh" > "$T/session.sh"
echo ': > "$OUT/end"' >> "$T/session.sh"
rc=0
(cd "$T/repo" && OUT="$T/out" HOME="$T/home" TMPDIR="$T/tmp" PATH="$BIN:$PATH" \
  bash --norc --noprofile "$T/session.sh") 3>&2 > "$T/session.out" 2>&1 || rc=$?
for ((n = 1; n <= blocks; n++)); do
  [ -e "$T/out/$n.out" ] || break
  echo "--- block $n"
  cat "$T/out/$n.out"
done
[ "$rc" -eq 0 ] || { cat "$T/session.out"; echo "the README session failed (exit $rc)" >&2; exit 1; }
[ -e "$T/out/end" ]  # the session ran to its end
for ((n = 1; n <= blocks; n++)); do "$PYTHON" "$(dirname "$0")/readme_blocks.py" check "$T/out" "$n" || rc=1; done
exit $rc
