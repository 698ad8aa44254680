# Messages that say what is true (issue 30, point 9): a unit's holder is named as the program it
# is (pmu-exporter, not "another pmu-raw"); --recover on a read-only snapshot says there is
# nothing to recover, or why it cannot take the lock; pmu-rcmap with nothing to list is a usage
# error, not a silent success; an iomem range over the whole address space is named as such, not
# as the region 0x0+0x0.
. "$(dirname "$0")/common.sh"

# The program that holds the unit.
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
printf '{"listen": "127.0.0.1:0", "events": ["uncore_imc_0/cas_count_read/"]}\n' > "$T/exporter.json"
exporter_start "$T/exporter.json" --snapshot "$T/spr"
status 1 "$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_imc_0/cas_count_read/ --duration 1 2> "$T/err"
grep -qxF "pmu-raw: error: uncore_imc_0 is in use by pmu-exporter (pid $EXPORTER_PID); units no other pmukit tool holds are free to count" \
  "$T/err" || { cat "$T/err" >&2; exit 1; }
kill "$EXPORTER_PID"
status 0 wait "$EXPORTER_PID"
stop_background

# --recover on a read-only snapshot: root ignores file modes, so a read-only bind mount in a mount
# namespace of its own; anyone else, the modes.
"$BIN/pmu-sim" create grace-2s "$T/ro" > /dev/null
readonly_run() { # readonly_run CMD...: CMD with $T/ro read-only
  if [ "$(id -u)" -eq 0 ]; then
    unshare --mount sh -c 'dir=$1; shift; mount --bind "$dir" "$dir" && mount -o remount,ro,bind "$dir" && exec "$@"' \
      sh "$T/ro" "$@"
  else
    chmod -R a-w "$T/ro"
    local rc=0
    "$@" || rc=$?
    chmod -R u+w "$T/ro"
    return $rc
  fi
}
if [ "$(id -u)" -eq 0 ] && ! unshare --mount true 2> /dev/null; then
  echo "no mount namespace here: the read-only snapshot part is not run"
else
  readonly_run "$BIN/pmu-raw" --snapshot "$T/ro" --recover 2> "$T/err"
  grep -qxF "pmu-raw: nothing to recover (no journal in $T/ro/run/pmukit)" "$T/err" || { cat "$T/err" >&2; exit 1; }
  mkdir -p "$T/ro/run/pmukit"
  printf 'pmukit-journal 2\npid 1\nroot %s\nregisters 0\nundo 0\nend\n' "$T/ro" > "$T/ro/run/pmukit/nvidia_scf_pmu_0.journal"
  status 1 readonly_run "$BIN/pmu-raw" --snapshot "$T/ro" --recover 2> "$T/err"
  grep -qF "pmu-raw: error: $T/ro/run/pmukit.lock: cannot create the machine lock (" "$T/err" || { cat "$T/err" >&2; exit 1; }
  grep -qF "snapshot $T/ro is not writable here; programming its registers, or restoring them, needs a writable copy" \
    "$T/err"
  not grep -q 'No such file or directory' "$T/err"
fi

# pmu-rcmap with nothing to list: on this machine, either its root ports or stacks (exit 0), or a
# usage error saying there is nothing -- never silence.
rc=0
"$BIN/pmu-rcmap" > "$T/out" 2> "$T/err" || rc=$?
if [ "$rc" -eq 0 ]; then
  test -s "$T/out"
else
  test "$rc" -eq 2
  grep -q '^pmu-rcmap: error: live machine: no root port with an NVIDIA RC mapping' "$T/err"
fi

# /proc/iomem naming the whole address space for the CMN's device: named as that range.
"$BIN/pmu-sim" create yitian "$T/y" > /dev/null
sed -i 's/^40000000-4fffffff : ARMHC700:00$/0-ffffffffffffffff : ARMHC700:00/' "$T/y/proc/iomem"
grep -q '^0-ffffffffffffffff : ARMHC700:00$' "$T/y/proc/iomem"
"$BIN/pmu-discover" --snapshot "$T/y" --cmn > "$T/out" 2>&1 || true
not grep -q '0x0+0x0' "$T/out"
grep -qF "names 0x0-0xffffffffffffffff for ARMHC700:00: the whole address space, not a configuration region" "$T/out"
