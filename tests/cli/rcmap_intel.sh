# pmu-rcmap on Intel: the bundled SPR and GNR machines (stack list, one device, the tree, JSON of
# every device, errors), a Sapphire Rapids MCC and an Ice Lake-SP built from test specs (another
# stack layout, the Linux uncore_iio_<n>/die<x> files, a disagreement, a non-root reader).
. "$(dirname "$0")/common.sh"
"$BIN/pmu-rcmap" --machine spr-2s > "$T/out"
same_as rcmap_spr_stacks "$T/out"
"$BIN/pmu-rcmap" --machine spr-2s 0000:16:00.0 0000:6a:01.0 > "$T/out"
same_as rcmap_spr_devices "$T/out"
"$BIN/pmu-rcmap" --machine spr-2s --tree > "$T/out"
same_as rcmap_spr_tree "$T/out"
"$BIN/pmu-rcmap" --machine gnr-2s 0000:12:00.0 0000:69:00.0 > "$T/out"
same_as rcmap_gnr_devices "$T/out"
# The tree draws every device once, as lspci -t does.
"$BIN/pmu-rcmap" --machine gnr-2s --tree > "$T/tree"
test "$(grep -c -- '-[0-9a-f][0-9a-f]\.[0-7]' "$T/tree")" = "$("$BIN/pmu-rcmap" --machine gnr-2s --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["devices"]))')"
grep -qx -- '-\[0000:69\]- socket 0 IIO stack HCx0 (QAT bus) (entry 9): uncore_iio_1, with stack HCx0' "$T/tree"
# JSON: every device below a root port of a PCIe stack has exactly one part and runnable filters.
"$BIN/pmu-rcmap" --machine spr-2s --json > "$T/json"
python3 - "$T/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "pmukit.rcmap/1" and d["iio"]["scheme"] == "spr" and d["iio"]["table"] == "xcc"
assert d["iio"]["warnings"] == [] and d["iio"]["config_reads"] == 22
by = {x["device"]: x for x in d["devices"]}
nvme = by["0000:4c:00.0"]  # behind the PEX890xx switch on root port 48:03.0
assert nvme["mapping"]["pmu"] == "uncore_iio_7" and nvme["mapping"]["parts"] == [2], nvme
assert nvme["mapping"]["filter_config"] == "0x7004000000000"
assert nvme["filters"][0]["example"] == "uncore_iio_7/event=0x83,umask=0x01,ch_mask=0x4,fc_mask=0x7/"
assert nvme["name"] == "Samsung Electronics Co Ltd NVMe SSD Controller PM173X"
below = [x for x in d["devices"] if x["root_port"] and x["root_port"] != x["device"]]
assert len(below) == 16 and all(len(x["mapping"]["parts"]) == 1 for x in below), len(below)
assert by["0000:7e:0c.0"]["error"].startswith("it is on bus 7e, in the bus range of IIO stack IDX3")
PY
# Errors: one line each, exit 1.
status 1 "$BIN/pmu-rcmap" --machine gnr-2s 0000:01:08.0 2> "$T/err"
grep -qx 'pmu-rcmap: error: 0000:01:08.0: it is on the buses of IIO stack UBOXA (socket 0, root bus 0000:00), which has no IIO PMU' "$T/err"
status 1 "$BIN/pmu-rcmap" --machine spr-2s 0000:00:00.0 > "$T/out" 2> "$T/err"
grep -q 'no ch_mask part selects it$' "$T/err"
grep -qx '  socket 0 (Linux logical die 0), IIO stack DMI, root bus 0000:00, no part' "$T/out"
status 1 "$BIN/pmu-rcmap" --machine spr-2s 0000:99:00.0 2> "$T/err"
grep -qx 'pmu-rcmap: error: 0000:99:00.0: no such PCI device' "$T/err"
status 2 "$BIN/pmu-rcmap" --machine spr-2s --tree 0000:16:00.0 2> "$T/err"
# Another layout: SPR MCC (chop 0b01) picks the MCC table: IDX0 is uncore_iio_3, QAT part 5.
"$BIN/pmu-sim" create --spec "$DATA/machines/spr-mcc-1s.json" "$T/mcc" > /dev/null
"$BIN/pmu-rcmap" --snapshot "$T/mcc" 0000:11:00.0 0000:41:00.0 > "$T/out"
grep -qx '  socket 0 (Linux logical die 0), IIO stack IDX0, root bus 0000:10, part 5 (QAT)' "$T/out"
grep -q '^  uncore_iio_3  *ch_mask=0x20,fc_mask=0x7  ' "$T/out"
grep -q '^  uncore_iio_5  *ch_mask=0x80,fc_mask=0x7  part 7 of stack PCIe4' "$T/out"
# Ice Lake-SP with the files Linux shows: they agree, then one disagrees, then config space is
# unreadable (as for a non-root reader) and the files are the route.
"$BIN/pmu-sim" create --spec "$DATA/machines/icx-2s.json" "$T/icx" > /dev/null
"$BIN/pmu-rcmap" --snapshot "$T/icx" 0000:98:00.0 > "$T/out" 2> "$T/err"
test ! -s "$T/err"
grep -qx '  Linux: uncore_iio_0/die1 = 0000:97' "$T/out"
grep -q '^  uncore_iio_0  *ch_mask=0x2,fc_mask=0x7  part 1 of stack PCIe0' "$T/out"
echo "0000:17" > "$T/icx/sys/devices/uncore_iio_0/die0"
"$BIN/pmu-rcmap" --snapshot "$T/icx" 0000:17:00.0 > "$T/out" 2> "$T/err"
grep -qx 'pmu-rcmap: warning: Linux uncore_iio_0/die0 says 0000:17, but 0000:16:00.0 SAD_CONTROL_CFG @0x3f4 = 0x10 gives 0000:16 for stack PCIe0: using config space' "$T/err"
echo "0000:16" > "$T/icx/sys/devices/uncore_iio_0/die0"
for f in "$T"/icx/sys/bus/pci/devices/*/config; do truncate -s 64 "$f"; done
"$BIN/pmu-rcmap" --snapshot "$T/icx" > "$T/out" 2> "$T/err"
grep -q 'read from Linux uncore_iio_<n>/die<x> files' "$T/out"
grep -qx 'pmu-rcmap: warning: 6 IIO mapping registers are beyond the readable config space (not root?): IIO stacks taken from Linux uncore_iio_<n>/die<x> files' "$T/err"
"$BIN/pmu-rcmap" --snapshot "$T/icx" 0000:4b:00.0 2> /dev/null > "$T/icx.out"
grep -q '^  uncore_iio_3  *ch_mask=0x8,fc_mask=0x7' "$T/icx.out"
# NVIDIA machines draw their tree too, root ports annotated with RC#, RP# and filter.
"$BIN/pmu-rcmap" --machine t410-2s --tree > "$T/t410.tree"
grep -q -- '-00.0-\[41-5f\]  .*\[RC 4 RP 1 socket 0: nvidia_pcie_pmu_0_rc_4 src_rp_mask=0x2\]$' "$T/t410.tree"
