# --json follows the pmukit.pci/1 schema documented in docs/json.md.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-discover" --pci --json --pci-dump "$DATA/pci/fixtures.dump" > "$T/out" 2>/dev/null
python3 - "$T/out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "pmukit.pci/1" and doc["access_method"] == "dump"
devs = {d["bdf"]: d for d in doc["devices"]}
assert len(devs) == 11, len(devs)
pmon = devs["0000:6a:03.1"]
assert (pmon["vendor_id"], pmon["device_id"], pmon["config_size"], pmon["pcie"]) == (0x8086, 0x09a7, 4096, True)
dvsec = [c for c in pmon["capabilities"] if "dvsec" in c]
assert [c["offset"] for c in dvsec] == [0x100, 0x110, 0x120, 0x130, 0x140]
assert dvsec[0]["dvsec"] == {"vendor": 0x8086, "id": 1, "rev": 1, "length": 16}
vsec = devs["0000:b0:00.0"]["capabilities"]
ras = [c for c in vsec if c.get("vsec", {}).get("id") == 2][0]
assert ras["offset"] == 0x374 and ras["vsec"] == {"vendor": 0x1ded, "id": 2, "rev": 4, "length": 0x100}
assert devs["0000:00:05.0"]["config_size"] == 256
assert devs["0000:10:00.0"]["warnings"] == ["0000:10:00.0 @0x160: extended capability list loops"]
for d in doc["devices"]:
    for key in ("bdf", "domain", "bus", "device", "function", "vendor_id", "device_id", "class",
                "numa_node", "root_port", "bars", "capabilities", "warnings"):
        assert key in d, (d["bdf"], key)
print("ok")
PY
