# pmu-rcmap: the example of nvidia-tegra410-pmu.rst byte for byte (read from the DVSEC bytes
# of the bundled t410-2s snapshot), the guide's script itself agreeing on the same tree, per-device
# filters, JSON, and errors.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-rcmap" --machine t410-2s > "$T/out"
same_as rcmap_guide "$T/out"
# Through libpci's sysfs method on a written-out tree, as the guide's script reads it.
"$BIN/pmu-discover" --machine t410-2s --write-machine "$T/m"
"$BIN/pmu-rcmap" -A linux-sysfs -O sysfs.path="$T/m/sys/bus/pci" > "$T/out"
same_as rcmap_guide "$T/out"
# The DVSEC bytes really are read: change RC# of 0001:00:00.0 (+0x20f) and the line changes.
printf '\x07' | dd of="$T/m/sys/bus/pci/devices/0001:00:00.0/config" bs=1 seek=$((0x20f)) conv=notrunc status=none
"$BIN/pmu-rcmap" --snapshot "$T/m" > "$T/first"
head -1 "$T/first" | grep -qx '0001:00:00.0: Bus=00, Segment=01, RP=00, RC=07, Socket=00'
# The guide's script itself, when lspci, setpci and gawk are here (scripts/install-deps.sh installs them).
if command -v lspci >/dev/null && command -v setpci >/dev/null && command -v gawk >/dev/null; then
  "$BIN/pmu-discover" --machine t410-2s --write-machine "$T/s"
  mkdir -p "$T/bin" && ln -s "$(command -v gawk)" "$T/bin/awk"
  PATH="$T/bin:$PATH" PCI_OPTS="-A linux-sysfs -O sysfs.path=$T/s/sys/bus/pci" \
    bash "$PMUKIT_SRC/bench/rcmap/guide-rcmap.sh" > "$T/guide" 2>/dev/null
  same_as rcmap_guide "$T/guide"
fi
# One endpoint and one root port: RP#, RC#, socket#, PMUs, the filter that counts exactly it.
"$BIN/pmu-rcmap" --machine t410-2s 0005:41:00.1 0002:c0:00.0 > "$T/out"
same_as rcmap_devices "$T/out"
"$BIN/pmu-rcmap" --machine grace-2s 0018:01:00.0 > "$T/out"
grep -q '^  nvidia_pcie_pmu_1  root_port=0x100  every device below root port 0018:00:00.0 (this PMU has no BDF filter)$' "$T/out"
"$BIN/pmu-rcmap" --machine grace-2s > "$T/grace"
grep -qx '0008:00:00.0: Socket=00, RP=08 (Grace: derived from the domain number, not read from hardware)' "$T/grace"
# JSON for scripts.
"$BIN/pmu-rcmap" --machine t410-2s --json 0005:41:00.1 > "$T/json"
python3 - "$T/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "pmukit.rcmap/1"
dev = d["devices"][0]
assert dev["root_port"] == "0005:40:00.0" and dev["mapping"]["rc"] == 4 and dev["mapping"]["rp"] == 1
assert dev["filters"][0] == {"pmu": "nvidia_pcie_pmu_0_rc_4", "terms": "src_bdf=0x4101,src_bdf_en=1",
                             "scope": "this function only",
                             "example": "nvidia_pcie_pmu_0_rc_4/rd_bytes,src_bdf=0x4101,src_bdf_en=1/", "registered": True}
PY
test "$("$BIN/pmu-rcmap" --machine t410-2s --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["root_ports"]))')" = 21
# Errors: one line each, exit 1; a malformed BDF is a usage error, exit 2.
status 1 "$BIN/pmu-rcmap" --machine t410-2s 0005:99:00.0 2> "$T/err"
grep -qx 'pmu-rcmap: error: 0005:99:00.0: no such PCI device' "$T/err"
status 1 "$BIN/pmu-rcmap" --machine yitian 0000:b1:00.0 2> "$T/err"
grep -q '^pmu-rcmap: error: 0000:b1:00.0: its root port 0000:b0:00.0 has no NVIDIA RC mapping' "$T/err"
status 2 "$BIN/pmu-rcmap" --machine t410-2s zz:00 2> "$T/err"
grep -q "^pmu-rcmap: error: 'zz:00': not a PCI address" "$T/err"
# Nothing to list (no NVIDIA RC mapping, no Intel IIO stacks): a usage error saying so, not silence.
status 2 "$BIN/pmu-rcmap" --machine yitian > "$T/out" 2> "$T/err"
test ! -s "$T/out"
grep -q "^pmu-rcmap: error: .*: no root port with an NVIDIA RC mapping (Tegra410 DVSEC, Grace domain) and no Intel IIO stacks: nothing to list; name a device (BDF)" "$T/err"
