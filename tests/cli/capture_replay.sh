#!/usr/bin/env bash
# pmu-discover --capture DIR, then --snapshot DIR, reproduces the source's --dump, --pci --json
# and --cmn output byte for byte, apart from the lines that name the source (issue 27): on the
# live machine the suite runs on (whatever it is) and on every bundled synthetic machine (each
# captured through --snapshot). The live capture copies no private file and maps nothing.
source "$(dirname "$0")/common.sh"

# unsourced FILE ROOT: FILE with the source named alike ("live machine", "snapshot ROOT"), ROOT
# left out of the paths it prefixes, and without the process's own uid (a capture replays the
# machine, not who ran it).
unsourced() {
  sed -e "s#snapshot $2#SOURCE#g; s#live machine#SOURCE#g; s#$2/#/#g" "$1" | grep -vE 'not root \(uid [0-9]+\)' || true
}

# replays NAME SOURCE_ARGS...: captures SOURCE into $T/NAME.cap and diffs the three views.
replays() {
  local name=$1
  shift
  status 0 "$BIN/pmu-discover" "$@" --capture "$T/$name.cap" > "$T/$name.capture.out"
  [ -f "$T/$name.cap/PMUKIT_CAPTURE.json" ]
  local view i=0 views=("--dump" "--pci --json" "--cmn")
  # Without root a live config file reads as 64 bytes of a larger file; the capture holds the 64
  # (its manifest says so), so the PCI view differs exactly where the live one lacked privilege.
  [ "$name" = live ] && [ "$(id -u)" != 0 ] && views=("--dump" "--cmn")
  for view in "${views[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # a view is several words
    "$BIN/pmu-discover" "$@" $view > "$T/$name.$i.src" 2>&1 || echo "exit $?" >> "$T/$name.$i.src"
    # shellcheck disable=SC2086
    "$BIN/pmu-discover" --snapshot "$T/$name.cap" $view > "$T/$name.$i.cap" 2>&1 || echo "exit $?" >> "$T/$name.$i.cap"
    diff -u <(unsourced "$T/$name.$i.src" "${src_root:-/nonexistent}") <(unsourced "$T/$name.$i.cap" "$T/$name.cap") ||
      { echo "$name: pmu-discover $view differs on the capture" >&2; return 1; }
  done
}

# (a) The live machine.
src_root= replays live
"$PYTHON" - "$T/live.cap" << 'EOF'
import json, os, sys
root = sys.argv[1]
m = json.load(open(os.path.join(root, "PMUKIT_CAPTURE.json")))
assert m["schema"] == "pmukit.capture/1" and m["tool"].startswith("pmu-discover (pmukit) "), m
assert m["kernel_release"] == os.uname().release and m["source"] == "live machine", m
assert m["files"] > 0, m
private = {"product_serial", "board_serial", "chassis_serial", "product_uuid", "address", "perm_addr"}
for d, dirs, files in os.walk(root):
    for f in files:
        assert f not in private, os.path.join(d, f)
# A register byte is copied only from a window discovery proved and read; when it read none, the
# manifest says why.
if m["register_bytes"] == 0:
    assert any(s["path"] == "register windows" for s in m["skipped"]), m["skipped"]
EOF
# A capture goes into a new tree only: one line naming the directory, exit 1, nothing written.
before=$(find "$T/live.cap" -newer "$T/live.cap/PMUKIT_CAPTURE.json" | wc -l)
status 1 "$BIN/pmu-discover" --capture "$T/live.cap" > "$T/again.out" 2> "$T/again.err"
grep -qx "pmu-discover: error: $T/live.cap: exists and is not an empty directory; --capture writes a new tree" "$T/again.err"
[ "$(find "$T/live.cap" -newer "$T/live.cap/PMUKIT_CAPTURE.json" | wc -l)" = "$before" ]
# The capture holds no device file: replaying it can touch no hardware.
[ -z "$(find "$T/live.cap" \( -type c -o -type b -o -type p \) -print)" ]

# (b) Every bundled synthetic machine, written by pmu-sim create and captured through --snapshot.
machines=$("$BIN/pmu-discover" --list-machines | awk 'NF && $1 !~ /:$/ {print $1}')
[ -n "$machines" ]
for m in $machines; do
  status 0 "$BIN/pmu-sim" create "$m" "$T/$m.src" > /dev/null
  src_root=$T/$m.src replays "$m" --snapshot "$T/$m.src"
done

# Never beyond the proven windows: bytes planted in grace-2s's dev/mem outside every APMT page
# (physical page 0x1000) stay out of the capture, whose dev/mem is a sparse file of the same size.
printf 'PMUKIT-NOT-A-PMU' | dd of="$T/grace-2s.src/dev/mem" bs=4096 seek=1 conv=notrunc status=none
rm -rf "$T/grace-2s.cap"
status 0 "$BIN/pmu-discover" --snapshot "$T/grace-2s.src" --capture "$T/grace-2s.cap" > /dev/null
[ "$(stat -c %s "$T/grace-2s.cap/dev/mem")" = "$(stat -c %s "$T/grace-2s.src/dev/mem")" ]
[ "$(dd if="$T/grace-2s.cap/dev/mem" bs=4096 skip=1 count=1 status=none | tr -d '\0' | wc -c)" = 0 ]
"$PYTHON" - "$T/grace-2s.cap/PMUKIT_CAPTURE.json" << 'EOF2'
import json, sys
m = json.load(open(sys.argv[1]))
# Five CoreSight PMUs per socket, one 4 KiB page each read (page 0; no dual-page node), two sockets.
assert m["register_bytes"] > 0 and m["register_bytes"] % 4096 == 0, m
EOF2
