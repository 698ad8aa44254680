# pmu-discover on the bundled Arm and DesignWare machines: the whole text inventory (CoreSight by
# socket, Tegra410 blocks, DesignWare root ports, RC mapping), the JSON counts per family, and the
# APMT decode.
. "$(dirname "$0")/common.sh"
for m in grace-2s t410-2s yitian; do
  "$BIN/pmu-discover" --machine "$m" > "$T/out" 2> "$T/err"
  test ! -s "$T/err" || { cat "$T/err" >&2; exit 1; }
  # The APMT path names the temporary tree: fold it.
  sed -E 's|[^ ]*/sys/firmware/acpi/tables/APMT|ROOT/sys/firmware/acpi/tables/APMT|' "$T/out" > "$T/out.s"
  same_as "discover_$m" "$T/out.s"
done
"$BIN/pmu-discover" --machine t410-2s --json > "$T/json"
python3 - "$T/json" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
fams = collections.Counter(u["family"] for u in d["units"])
assert fams == {"coresight": 26, "t410-c2c": 6, "t410-cmem-latency": 2}, fams
assert d["apmt"]["nodes"] == 26 and d["apmt"]["checksum_ok"] is True
assert len(d["root_ports"]) == 21
u = next(u for u in d["units"] if u["name"] == "nvidia_pcie_pmu_1_rc_4")
assert u["coresight"]["rc"] == 4 and u["coresight"]["product"] == "Tegra410 PCIE" and u["socket"] == 1
assert {f["name"] for f in u["filters"]} >= {"src_rp_mask", "src_bdf", "src_bdf_en"}
c2c = next(u for u in d["units"] if u["name"] == "nvidia_nvlink_c2c_pmu_1")
assert len(c2c["t410-c2c"]["instances"]) == 14 and c2c["t410-c2c"]["exposed"] is True
# The snapshot's kernel registers the 26 CoreSight PMUs, not the Tegra410 C2C/CMEM blocks.
assert c2c["perf_pmu"] is None
assert u["perf_pmu"]["type"] > 0 and u["perf_pmu"]["cpumask"]
assert sum(1 for x in d["units"] if x["perf_pmu"]) == 26
PY
"$BIN/pmu-discover" --machine yitian --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
units = [u for u in d["units"] if u["family"] == "dwc-rasdes"]
assert len(units) == 15
# The snapshot kernel is the Anolis OS one of the guide: the PMU of each root port is pcie_bdf_<bdf>.
assert all(x["perf_pmu"]["name"] == x["aliases"][0] for x in units)
u = next(u for u in units if u["name"] == "dwc_rootport_3018")
assert u["dwc-rasdes"]["vsec_offset"] == "0x374" and u["dwc-rasdes"]["registers"][0] == {"name": "EVENT_CNT_CTL", "offset": "0x37c"}
# The Anolis OS name of each root port: bus << 16 | device << 8 | function (Alibaba Yitian 710 PCIe PMU guide: pcie_bdf_200 is 00:02.0).
assert u["aliases"] == ["pcie_bdf_300300"], u["aliases"]
assert next(x for x in units if x["name"] == "dwc_rootport_10")["aliases"] == ["pcie_bdf_200"]
'
# The APMT decode: the fwts corpus tables through -O acpi.path.
mkdir -p "$T/acpi"
cp "$DATA/acpi/apmt-valid.bin" "$T/acpi/APMT"
"$BIN/pmu-discover" --apmt -O acpi.path="$T/acpi" > "$T/out" 2> "$T/err"
test ! -s "$T/err"
grep -q '^  Checksum:                 0x79 (correct)$' "$T/out"
grep -q '^  Node flags:               0x06 (dual page: no; affinity: processor container; 64-bit atomic: yes)$' "$T/out"
cp "$DATA/acpi/apmt-malformed.bin" "$T/acpi/APMT"
"$BIN/pmu-discover" --apmt -O acpi.path="$T/acpi" > "$T/out" 2> "$T/err"
test "$(grep -c '^pmu-discover: warning: ' "$T/err")" = 7
grep -q "^pmu-discover: warning: $T/acpi/APMT: node 2 (id 0x1) @0x94: node type 0x05 is unknown" "$T/err"
# A node of length 0 is one error line, exit 1, never a hang; discovery goes on without the APMT.
python3 -c "
import sys; b = bytearray(open('$DATA/acpi/apmt-valid.bin','rb').read()); b[0x24] = 0; b[0x25] = 0
open('$T/acpi/APMT','wb').write(bytes(b))"
status 1 timeout 10 "$BIN/pmu-discover" --apmt -O acpi.path="$T/acpi" 2> "$T/err"
test "$(wc -l < "$T/err")" = 1
grep -q "^pmu-discover: error: $T/acpi/APMT: node 0 @0x24: length 0$" "$T/err"
status 1 "$BIN/pmu-discover" --apmt -O acpi.path="$T/nowhere" 2> "$T/err"
grep -q 'no APMT on this machine' "$T/err"
