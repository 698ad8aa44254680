#!/usr/bin/env bash
# Every tool, read-only, on the live machine the suite runs on, as a user runs them (issue 27).
# Whatever that machine is, nothing is invented and nothing unproven is touched:
#  - no Arm CMN mesh without an ARMHC600/650/700 ACPI device or an arm,cmn-*/ci-700 devicetree
#    node, no CoreSight PMU without an APMT;
#  - no physical memory is mapped: strace sees no BAR resourceN file and no /dev/mem opened -- here
#    a stand-in file given with -O devmem.path=, so that even an attempt shows;
#  - nothing is opened for writing outside the scratch directory;
#  - every tool exits 0, and every message is one line naming its tool;
#  - pmu-discover --dump --fallback-machine (scripts/setup.sh's command) either shows the live
#    units, or says why there are none, one line per cause, and shows the labelled synthetic machine.
source "$(dirname "$0")/common.sh"
command -v strace > /dev/null || skip "strace is not installed (scripts/install-deps.sh installs it)"
strace -f -o /dev/null true 2> /dev/null || skip "strace cannot trace here (ptrace not permitted)"

: > "$T/mem"  # the stand-in for /dev/mem: opening it at all would be an attempt to map
# traced NAME TOOL ARGS...: runs TOOL under strace (openat, mmap), its output in $T/NAME.{out,err,trace}.
traced() {
  local name=$1 tool=$2
  shift 2
  # LeakSanitizer stops the world with ptrace, which a traced process cannot: under the ASan preset
  # it would end every run with a fatal error. Leaks are checked by every other test.
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" status 0 strace -f -qq -e trace=openat,open,mmap -o "$T/$name.trace" \
    "$BIN/$tool" -O "devmem.path=$T/mem" "$@" > "$T/$name.out" 2> "$T/$name.err"
  # An O_PATH open only looks at the file (is there a /dev/mem?); any other open is an attempt.
  if grep -E '/resource[0-9]+"|"/dev/mem"|"'"$T"'/mem"' "$T/$name.trace" | grep -v 'O_PATH'; then
    echo "$tool $*: opened a BAR or physical memory on the live machine" >&2
    return 1
  fi
  if grep -E 'O_(WRONLY|RDWR)' "$T/$name.trace" | grep -vE '"(/dev/null|/dev/tty|'"$T"'[^"]*)"'; then
    echo "$tool $*: opened a file for writing on the live machine" >&2
    return 1
  fi
  if grep -vE "^$tool: " "$T/$name.err"; then
    echo "$tool $*: a message that is not one line naming the tool" >&2
    return 1
  fi
}

traced dump pmu-discover
traced cmn pmu-discover --cmn
traced json pmu-discover --json
traced events pmu-raw --list-events
traced metrics pmu-raw --list-metrics
traced setup pmu-discover --dump --fallback-machine spr-2s

# What the firmware offers that could describe a mesh or a CoreSight PMU.
cmn_firmware=0
for hid in /sys/bus/acpi/devices/*/hid; do
  case "$(cat "$hid" 2> /dev/null)" in ARMHC600 | ARMHC650 | ARMHC700) cmn_firmware=1 ;; esac
done
if [ -d /sys/firmware/devicetree/base ] &&
  find /sys/firmware/devicetree/base -name compatible -exec grep -qzE '^arm,(cmn-[0-9]+|ci-700)$' {} \; -print |
  grep -q .; then
  cmn_firmware=1
fi
apmt=0
[ -e /sys/firmware/acpi/tables/APMT ] && apmt=1

"$PYTHON" - "$T/json.out" "$cmn_firmware" "$apmt" << 'EOF'
import json, sys
inv = json.load(open(sys.argv[1]))
cmn_firmware, apmt = sys.argv[2] == "1", sys.argv[3] == "1"
families = [u["family"] for u in inv["units"]]
if not cmn_firmware and "arm-cmn" in families:
    sys.exit(f"a CMN mesh with no ARMHC600/650/700 device or devicetree node: {families}")
if not apmt and "coresight" in families:
    sys.exit(f"a CoreSight PMU with no APMT: {families}")
if not inv["units"] and not inv.get("no_units_because"):
    sys.exit("no units and no reason given")
EOF
if [ "$cmn_firmware" = 0 ]; then
  for v in dump cmn events metrics setup; do
    not grep -n 'arm_cmn\|Arm CMN meshes' "$T/$v.out"
  done
fi
if grep -q '^No uncore PMU units found' "$T/dump.out"; then
  # scripts/setup.sh ends with the labelled synthetic machine, and the reasons, one line each.
  grep -q "^This machine (live machine) has no uncore PMU discovery; showing the bundled synthetic machine 'spr-2s'" \
    "$T/setup.out"
  grep -q '^  why: ' "$T/setup.out"
  grep -q '^\*\*\* SYNTHETIC' "$T/setup.out"
else
  not grep -q 'showing the bundled synthetic machine' "$T/setup.out"
fi
echo "live root: $(grep -c '^  why: ' "$T/dump.out" || true) reasons for no units; no unit invented, nothing mapped"
