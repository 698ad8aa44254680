#!/usr/bin/env bash
# A capture of a real virtual machine (tests/data/captures/vm-firecracker, made with pmu-discover --capture
# on a Firecracker guest (virtio PCI functions) the suite ran on; see its PMUKIT_CAPTURE.json) as a regression
# fixture for issue 27: ACPI nodes without _HID (device:NN) whose physical_node is a PCI function,
# and /proc/iomem naming that function's BAR. No tool invents a unit there (no Arm CMN mesh, no
# CoreSight PMU), and none opens a BAR's resourceN or dev/mem to map it.
source "$(dirname "$0")/common.sh"
VM=$DATA/captures/vm-firecracker
[ -f "$VM/PMUKIT_CAPTURE.json" ]

# The fixture still shows what it is for: a hid-less ACPI node linked to a PCI function, and that
# function's BAR named in /proc/iomem.
found=0
for dev in "$VM"/sys/bus/acpi/devices/device:*; do
  [ -e "$dev/hid" ] && continue
  [ -L "$dev/physical_node" ] || continue
  bdf=$(basename "$(readlink "$dev/physical_node")")
  grep -qE "^ +[0-9a-f]+-[0-9a-f]+ : $bdf\$" "$VM/proc/iomem" && found=1
done
[ "$found" = 1 ] || { echo "$VM: no hid-less ACPI node whose PCI function's BAR /proc/iomem names" >&2; exit 1; }

status 0 "$BIN/pmu-discover" --snapshot "$VM" --json > "$T/inv.json"
status 0 "$BIN/pmu-discover" --snapshot "$VM" --cmn > "$T/cmn.txt"
status 0 "$BIN/pmu-raw" --snapshot "$VM" --list-events > "$T/events.txt"
"$PYTHON" - "$T/inv.json" << 'EOF'
import json, sys
inv = json.load(open(sys.argv[1]))
assert inv["units"] == [], inv["units"][:3]
assert inv["no_units_because"], inv
EOF
grep -qx "No Arm CMN mesh found on snapshot $VM." "$T/cmn.txt"
not grep -q 'arm_cmn' "$T/events.txt"

# Nothing mapped: every register file open is an O_PATH look (is it there?), never an open to map.
if command -v strace > /dev/null && strace -f -o /dev/null true 2> /dev/null; then
  for args in "--dump" "--cmn" "--json"; do
    # shellcheck disable=SC2086 # several words
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" status 0 strace -f -qq -e trace=openat,open -o "$T/trace" \
      "$BIN/pmu-discover" --snapshot "$VM" $args > /dev/null
    if grep -E '/resource[0-9]+"|/dev/mem"' "$T/trace" | grep -v O_PATH; then
      echo "pmu-discover $args: opened a BAR or physical memory of the fixture" >&2
      exit 1
    fi
  done
fi
