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
