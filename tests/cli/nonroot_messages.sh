#!/usr/bin/env bash
# What a user who is not root is told (issue 35 point 8): each refusal says what is needed, not
# "Permission denied" alone. Run as root, the commands run as uid 65534 (setpriv); as another user,
# as that user.
#   - pmu-sim create / pmu-discover --capture into a directory the user may not write: the user and
#     the directory that refused it;
#   - pmu-raw on a snapshot whose device files the user may not open: that it is the file's mode
#     (no kernel policy such as STRICT_DEVMEM is blamed);
#   - pmu-raw on this machine's perf PMUs: the perf_event_paranoid setting and the ways out.
source "$(dirname "$0")/common.sh"
if [ "$(id -u)" -eq 0 ]; then
  command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed"
  as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  # uid 65534 must reach the tools and the scratch directory: where the build tree is private (a
  # checkout under a mode-700 directory), copies of the tools in the scratch directory.
  chmod 755 "$T"
  if ! as_user test -x "$BIN/pmu-sim"; then
    mkdir "$T/bin"
    cp "$BIN/pmu-sim" "$BIN/pmu-discover" "$BIN/pmu-raw" "$T/bin/"
    BIN=$T/bin
    as_user test -x "$BIN/pmu-sim" || skip "uid 65534 cannot reach $BIN"
  fi
  uid=65534
else
  as_user() { "$@"; }
  uid=$(id -u)
fi

mkdir "$T/locked"
chmod 555 "$T/locked"
if [ "$uid" -ne 0 ] && ! as_user test -w "$T/locked"; then
  status 1 as_user "$BIN/pmu-sim" create spr-2s "$T/locked/spr" 2> "$T/create.err"
  grep -qx "pmu-sim: error: cannot create the directory $T/locked/spr: Permission denied (uid $uid may not write in $T/locked: choose a directory it may write, or run as its owner)" "$T/create.err"
  status 1 as_user "$BIN/pmu-discover" --capture "$T/locked/cap" 2> "$T/capture.err"
  grep -q "cannot create the directory $T/locked/cap.*: Permission denied (uid $uid may not write in $T/locked" "$T/capture.err"
  not grep -q "filesystem error" "$T/create.err" "$T/capture.err"
fi

# A snapshot made by another user (root here), its device files mode 0644.
if [ "$(id -u)" -eq 0 ]; then
  "$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
  chmod -R a+rX "$T/spr"
  status 1 as_user "$BIN/pmu-raw" --snapshot "$T/spr" --backend direct -e uncore_imc/cas_count_read/ --duration 0.1 \
    2> "$T/raw.err"
  grep -q "Permission denied (the snapshot's file does not let uid 65534 open it: run as the user who made the snapshot, or as root)" "$T/raw.err"
  not grep -q STRICT_DEVMEM "$T/raw.err"
fi

# This machine's perf PMUs under perf_event_paranoid > 0 (as perf stat explains it).
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2> /dev/null || echo -1)
if [ "$uid" -ne 0 ] && [ "$paranoid" -gt 0 ]; then
  status 1 as_user "$BIN/pmu-raw" -e cpu-clock --duration 0.1 2> "$T/perf.err"
  grep -q "permission denied: kernel.perf_event_paranoid is $paranoid and system-wide (and uncore) counting needs 0 or less; run as root, grant CAP_PERFMON" "$T/perf.err"
fi
echo "non-root messages: say what is needed"
