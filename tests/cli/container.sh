#!/usr/bin/env bash
# pmu-discover in a container (issue 27): a new PID and mount namespace, /proc mounted for it and
# /sys read-only, as container runtimes set them up. It prints what it prints outside (the same
# units, or the same one-line reasons why there are none), exits 0, and writes nothing: the
# mount namespace's /sys refuses writes, and strace sees no open for writing.
source "$(dirname "$0")/common.sh"
command -v unshare > /dev/null || skip "unshare (util-linux) is not installed"
unshare --pid --mount --fork --mount-proc true 2> /dev/null || skip "new PID and mount namespaces are not permitted here"

# The fallback machine is built in a fresh temporary directory each run.
unsourced() { sed -E 's#snapshot /[^ ]*pmukit-[^ ]*#snapshot TMP#' "$1" | grep -vE 'not root \(uid [0-9]+\)' || true; }

# in_container OUT ARGS...: pmu-discover ARGS in the namespaces, /sys bound read-only onto itself.
in_container() {
  local out=$1
  shift
  unshare --pid --mount --fork --mount-proc bash -c '
    set -e
    mount --bind /sys /sys
    mount -o remount,bind,ro /sys
    # The remount took: a write to /sys is refused here.
    if touch /sys/pmukit-probe 2> /dev/null; then echo "/sys is writable in the container" >&2; exit 1; fi
    exec "$@"' container "$BIN/pmu-discover" "$@" > "$out" 2> "$out.err"
}

i=0
for view in "--dump --fallback-machine spr-2s" "--dump --json" "--pci --json" "--cmn"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # a view is several words
  status 0 "$BIN/pmu-discover" $view > "$T/$i.host" 2> "$T/$i.host.err"
  # shellcheck disable=SC2086
  status 0 in_container "$T/$i.box" $view
  diff -u <(unsourced "$T/$i.host") <(unsourced "$T/$i.box")
  diff -u "$T/$i.host.err" "$T/$i.box.err"
  if grep -vE '^pmu-discover: ' "$T/$i.box.err"; then
    echo "pmu-discover $view: a message that is not one line naming the tool" >&2
    exit 1
  fi
done
# With no units, the reasons are there: one line each, under the fallback's header.
if grep -q 'has no uncore PMU discovery' "$T/1.box"; then
  grep -qE '^  why: .+' "$T/1.box"
fi

# Nothing opened for writing in the container (where strace may trace).
if command -v strace > /dev/null && strace -f -o /dev/null true 2> /dev/null; then
  # LeakSanitizer cannot stop a traced process's world (tests/cli/live_root.sh).
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" status 0 unshare --pid --mount --fork --mount-proc bash -c '
    mount --bind /sys /sys && mount -o remount,bind,ro /sys
    exec strace -f -qq -e trace=openat,open -o "$1" "$2" --dump' container "$T/trace" "$BIN/pmu-discover" > /dev/null
  if grep -E 'O_(WRONLY|RDWR|CREAT)' "$T/trace" | grep -vE '"(/dev/null|/dev/tty)"'; then
    echo "pmu-discover opened a file for writing in the container" >&2
    exit 1
  fi
fi
