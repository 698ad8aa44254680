# Sourced by every CLI test: strict mode, a trace of each command, helpers, a scratch directory.
set -euo pipefail
export LC_ALL=C
trap 'echo "command failed: line $LINENO: $BASH_COMMAND" >&2' ERR
BIN=${PMUKIT_BIN:?PMUKIT_BIN is set by CTest}
DATA=${PMUKIT_TESTDATA:?}
EXPECTED=$(dirname "${BASH_SOURCE[0]}")/expected
T=$(mktemp -d "${TMPDIR:-/tmp}/pmukit-cli-XXXXXX")
trap 'rm -rf "$T"' EXIT

# not CMD...: succeeds when CMD fails (like mold's).
not() { if "$@"; then return 1; else return 0; fi; }
# status N CMD...: runs CMD and checks its exit status.
status() { local want=$1; shift; local rc=0; "$@" || rc=$?; [ "$rc" -eq "$want" ] || { echo "exit $rc, wanted $want" >&2; return 1; }; }
# same_as NAME FILE: FILE equals expected/NAME.out
same_as() { diff -u "$EXPECTED/$1.out" "$2"; }
# skip REASON: CTest reports the test as skipped.
skip() { echo "skipped: $*"; exit 77; }
# sim_start DIR [ARGS...]: `pmu-sim run DIR ARGS` (virtual time) in the background until the script
# exits; returns once its clock page exists (a bounded wait, as tests/support/sim_process.cpp does).
SIM_PIDS=()
sim_start() {
  "$BIN/pmu-sim" run "$@" > /dev/null 2> "$T/pmu-sim.err" &
  SIM_PIDS+=($!)
  trap 'kill "${SIM_PIDS[@]}" 2> /dev/null; wait; rm -rf "$T"' EXIT
  local i
  for ((i = 0; i < 2000; i++)); do
    [ -e "$1/run/pmukit-sim/clock" ] && return 0
    kill -0 "${SIM_PIDS[-1]}" 2> /dev/null || { cat "$T/pmu-sim.err" >&2; return 1; }
    sleep 0.005
  done
  echo "pmu-sim did not publish its clock page" >&2
  return 1
}
