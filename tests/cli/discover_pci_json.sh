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
# The document is written one device at a time; its text is still exactly an indent-2 dump of
# itself (as one nlohmann dump(2) of the whole printed it), with devices and with none.
"$BIN/pmu-discover" --pci --json --pci-dump "$DATA/pci/fixtures.dump" -d ffff: > "$T/none" 2>/dev/null
python3 - "$T/out" "$T/none" <<'PY'
import collections, json, sys
for path, count in ((sys.argv[1], 11), (sys.argv[2], 0)):
    text = open(path, encoding="utf-8").read()
    doc = json.loads(text, object_pairs_hook=collections.OrderedDict)
    assert len(doc["devices"]) == count, (path, len(doc["devices"]))
    assert list(doc) == ["schema", "source", "access_method", "devices"], list(doc)
    want = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    assert text == want, (path, next(i for i, (a, b) in enumerate(zip(text, want)) if a != b))
print("indent-2 text, 11 and 0 devices")
PY
# The JSON the tool prints agrees with lspci -vvv on the same dump: per device, every capability's
# offset and extended version, and each VSEC/DVSEC header as lspci decodes it.
command -v lspci > /dev/null || skip "lspci is not installed"
lspci -F "$DATA/pci/fixtures.dump" -D -vvv > "$T/lspci" 2>/dev/null
python3 - "$T/out" "$T/lspci" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
lspci, cur = {}, None
for line in open(sys.argv[2]):
    m = re.match(r"^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ", line)
    if m:
        cur = m.group(1); lspci[cur] = []; continue
    m = re.match(r"^\tCapabilities: \[([0-9a-f]+)(?: v([0-9]+))?\] (.*)$", line.rstrip("\n"))
    if m and cur and not m.group(3).startswith(("<chain", "<access denied>")):
        lspci[cur].append((int(m.group(1), 16), int(m.group(2)) if m.group(2) else None, m.group(3)))
assert set(lspci) == {d["bdf"] for d in doc["devices"]}, (sorted(lspci), [d["bdf"] for d in doc["devices"]])
checked = 0
for d in doc["devices"]:
    ours = [(c["offset"], c.get("version")) for c in d["capabilities"]]
    theirs = [(o, v) for o, v, _ in lspci[d["bdf"]]]
    assert ours == theirs, (d["bdf"], ours, theirs)
    for c, (_, _, text) in zip(d["capabilities"], lspci[d["bdf"]]):
        if "vsec" in c:
            v = c["vsec"]
            want = "Vendor Specific Information: ID=%04x Rev=%d Len=%03x" % (v["id"], v["rev"], v["length"])
            assert text.startswith(want), (d["bdf"], text, want)
            checked += 1
        if "dvsec" in c:
            v = c["dvsec"]
            want = "Designated Vendor-Specific: Vendor=%04x ID=%04x Rev=%d Len=%d" % (v["vendor"], v["id"], v["rev"], v["length"])
            assert text.startswith(want), (d["bdf"], text, want)
            checked += 1
assert checked >= 8, checked
print("agrees with lspci on", len(lspci), "devices,", checked, "VSEC/DVSEC headers")
PY
