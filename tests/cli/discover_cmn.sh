# pmu-discover --cmn on the bundled yitian: the Alibaba Yitian 710 CMN interconnect bandwidth
# guide's eight CCLA lines, the whole node listing and the mesh picture, the SVG, the JSON, and
# the errors a user can make.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-discover" --machine yitian --write-machine "$T/y"
Y=(--snapshot "$T/y")
"$BIN/pmu-discover" "${Y[@]}" --cmn --cmn-type ccla > "$T/out" 2> "$T/err"
test ! -s "$T/err" || { cat "$T/err" >&2; exit 1; }
same_as discover_cmn_yitian_ccla "$T/out"
# The guide's listing (section 2, "CMN-700 Topology in Yitian SoC"), pasted as it prints it: every
# line is in the output, and nothing else is but the heading.
cat > "$T/guide" <<'EOF'
nodeid=0x1b5(437), logid=0x7, type=0x105(CCLA), (x,y,portid,devid)=(3,6,1,1)
nodeid=0x1ad(429), logid=0x6, type=0x105(CCLA), (x,y,portid,devid)=(3,5,1,1)
nodeid=0x1a5(421), logid=0x5, type=0x105(CCLA), (x,y,portid,devid)=(3,4,1,1)
nodeid=0x19d(413), logid=0x4, type=0x105(CCLA), (x,y,portid,devid)=(3,3,1,1)
nodeid=0x1c9(457), logid=0xa, type=0x105(CCLA), (x,y,portid,devid)=(3,9,0,1)
nodeid=0x181(385), logid=0x2, type=0x105(CCLA), (x,y,portid,devid)=(3,0,0,1)
nodeid=0x149(329), logid=0x8, type=0x105(CCLA), (x,y,portid,devid)=(2,9,0,1)
nodeid=0x101(257), logid=0x0, type=0x105(CCLA), (x,y,portid,devid)=(2,0,0,1)
EOF
tail -n +2 "$T/out" | sort > "$T/lines"
sort "$T/guide" | diff -u - "$T/lines"
# The type as the kernel's event names have it, as Arm writes it, or as a number.
for t in CCLA ccla_ 0x105 261; do
  "$BIN/pmu-discover" "${Y[@]}" --cmn --cmn-type "$t" > "$T/again"
  diff -u "$T/out" "$T/again"
done
# The whole mesh: every node in the kernel's order, then the picture.
"$BIN/pmu-discover" "${Y[@]}" --cmn > "$T/all"
same_as discover_cmn_yitian "$T/all"
not grep -q '^  nodeid' "$T/all"
test "$(grep -c '^nodeid=' "$T/all")" = 102
# The SVG: well-formed, one box per XP, every CCLA drawn with its logical id.
"$BIN/pmu-discover" "${Y[@]}" --cmn-svg "$T/mesh.svg" > "$T/svgout"
grep -q "^Wrote the picture of 1 mesh(es) to $T/mesh.svg.$" "$T/svgout"
python3 - "$T/mesh.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
xps = [r for r in root.iterfind(".//s:rect", ns) if r.get("class") == "xp"]
assert len(xps) == 40, len(xps)
texts = [t.text for t in root.iterfind(".//s:text", ns)]
assert sum(1 for t in texts if t.startswith("XP ")) == 40
for nid, logid in [(0x1b5, 7), (0x1ad, 6), (0x1a5, 5), (0x19d, 4), (0x1c9, 10), (0x181, 2), (0x149, 8), (0x101, 0)]:
    assert f"{nid:x}:CCLA#{logid}" in texts, (nid, logid)
assert "XP 1b0 (3,6)" in texts
assert float(root.get("width")) == 2 * 20 + 4 * 300 and float(root.get("height")) > 10 * 180
PY
# JSON: the CCLA selection indexes the mesh's node list.
"$BIN/pmu-discover" "${Y[@]}" --cmn --cmn-type ccla --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["schema"] == "pmukit.cmn/1" and len(d["meshes"]) == 1
m = d["meshes"][0]
assert m["name"] == "arm_cmn_0" and m["family"] == "arm-cmn"
c = m["arm-cmn"]
assert c["part_name"] == "CMN-700" and c["mesh"] == {"x": 4, "y": 10, "xy_bits": 4}
sel = [c["nodes"][i] for i in m["selected_nodes"]]
assert [(n["id"], n["logid"]) for n in sel] == [(257, 0), (385, 2), (413, 4), (421, 5), (429, 6), (437, 7), (329, 8), (457, 10)]
assert all(n["type_name"] == "CCLA" and n["dtc"] == 0 for n in sel)
assert len(c["skipped"]) == 64 and all(s["expected"] for s in c["skipped"])
'
# The inventory's JSON carries the same mesh.
"$BIN/pmu-discover" "${Y[@]}" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
u = next(u for u in d["units"] if u["family"] == "arm-cmn")
assert u["name"] == "arm_cmn_0" and len(u["arm-cmn"]["nodes"]) == 102 and u["perf_pmu"] is None
'
# Errors: one line, exit 2 for usage; a machine without a mesh says so.
status 2 "$BIN/pmu-discover" "${Y[@]}" --cmn --cmn-type nosuch 2> "$T/err"
grep -q "^pmu-discover: error: --cmn-type nosuch: no CMN node type of that name (known: DVM, CFG, DTC" "$T/err"
test "$(wc -l < "$T/err")" = 1
status 2 "$BIN/pmu-discover" "${Y[@]}" --cmn --cmn-pmu arm_cmn_7 2> "$T/err"
grep -q "^pmu-discover: error: --cmn-pmu arm_cmn_7: no such mesh here (found: arm_cmn_0)$" "$T/err"
"$BIN/pmu-discover" --machine grace-2s --cmn > "$T/out"
grep -q '^No Arm CMN mesh found on snapshot ' "$T/out"
status 1 "$BIN/pmu-discover" --machine grace-2s --cmn-svg "$T/none.svg" 2> "$T/err"
grep -q "^pmu-discover: error: $T/none.svg: no Arm CMN mesh on snapshot .* to draw$" "$T/err"
test ! -e "$T/none.svg"
# Another mesh from a machine spec (pmu-sim create --spec): a 3x3 CMN-650 described by the
# devicetree. Node ids worked by hand: 2-bit coordinates (fls(2 | 2 | 2)), id = (x << 2 | y) << 3 |
# port << 2 | device on these two-port XPs; HN-F logical ids run in XP order.
# arm-cmn is loaded: its claim names the region in /proc/iomem after the node, the second source
# that proves a devicetree mesh's region (docs/architecture.md).
cat > "$T/spec.json" <<'EOF'
{"name": "cmn650", "cpuinfo": {"vendor": ""}, "topology": {"sockets": 1},
 "cmn": [{"compatible": "arm,cmn-650", "kernel_pmu": "arm_cmn_0", "base": "0x50000000", "size": "0x1000000", "part": "0x436", "mesh": [3, 3],
          "ports": [{"xps": "all", "port": 0, "device": "HN-F"}, {"xps": [[1, 1]], "port": 1, "device": "RN-I"},
                    {"xps": [[0, 0]], "port": 1, "device": "HN-D"}],
          "nodes": [{"type": "HN-F", "xps": "all", "port": 0}, {"type": "RN-I", "at": [1, 1, 1, 0]},
                    {"type": "DTC", "at": [0, 0, 1, 0]}]}]}
EOF
"$BIN/pmu-sim" create --spec "$T/spec.json" "$T/m" > /dev/null
"$BIN/pmu-discover" --snapshot "$T/m" --cmn --cmn-type rni --cmn-type hnf > "$T/out" 2> "$T/err"
test ! -s "$T/err"
cat > "$T/want" <<'EOF'
arm_cmn_0: CMN-650 r0p0, 3x3 mesh, 20 nodes, 1 DTC; devicetree /cmn@50000000, region 0x50000000+0x1000000
nodeid=0x0(0), logid=0x0, type=0x5(HN-F), (x,y,portid,devid)=(0,0,0,0)
nodeid=0x20(32), logid=0x1, type=0x5(HN-F), (x,y,portid,devid)=(1,0,0,0)
nodeid=0x40(64), logid=0x2, type=0x5(HN-F), (x,y,portid,devid)=(2,0,0,0)
nodeid=0x8(8), logid=0x3, type=0x5(HN-F), (x,y,portid,devid)=(0,1,0,0)
nodeid=0x28(40), logid=0x4, type=0x5(HN-F), (x,y,portid,devid)=(1,1,0,0)
nodeid=0x48(72), logid=0x5, type=0x5(HN-F), (x,y,portid,devid)=(2,1,0,0)
nodeid=0x10(16), logid=0x6, type=0x5(HN-F), (x,y,portid,devid)=(0,2,0,0)
nodeid=0x30(48), logid=0x7, type=0x5(HN-F), (x,y,portid,devid)=(1,2,0,0)
nodeid=0x50(80), logid=0x8, type=0x5(HN-F), (x,y,portid,devid)=(2,2,0,0)
nodeid=0x2c(44), logid=0x0, type=0xa(RN-I), (x,y,portid,devid)=(1,1,1,0)
EOF
diff -u "$T/want" "$T/out"
status 2 "$BIN/pmu-discover" "${Y[@]}" --cmn-type ccla 2> "$T/err"
grep -q "^pmu-discover: error: --cmn-type selects nodes for --cmn; add --cmn$" "$T/err"
