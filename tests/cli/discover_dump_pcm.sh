# the guide's SPR sample: eight IMC boxes, type 6, ids 0-7, box ctrl 0xc8aa2800 ... 0xc8c2a800, MMIO,
# width 48, 4 counters, ctrl offset 64, ctr offset 8 -- printed with exactly those values.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create --spec "$DATA/machines/spr-pcm-imc.json" "$T/m" > /dev/null
"$BIN/pmu-discover" --snapshot "$T/m" > "$T/out"
sed -i "s|$T|T|g" "$T/out"
same_as discover_dump_pcm "$T/out"
"$BIN/pmu-discover" --snapshot "$T/m" --json > "$T/json"
python3 - "$T/json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "pmukit.inventory/1"
imc = [u for u in doc["units"] if u["type_name"] == "imc"]
assert [u["name"] for u in imc] == [f"uncore_imc_{i}" for i in range(8)]
ctl = ["0xc8aa2800", "0xc8aaa800", "0xc8b22800", "0xc8b2a800", "0xc8ba2800", "0xc8baa800", "0xc8c22800", "0xc8c2a800"]
for i, u in enumerate(imc):
    iu = u["intel-uncore"]
    assert (iu["type"], iu["box_id"], iu["access"], iu["box_ctl"]) == (6, i, "MMIO", ctl[i]), iu
    assert (u["counters"], u["width"], iu["ctl_offset"], iu["ctr_offset"]) == (4, 48, 64, 8)
    base = int(ctl[i], 16)
    assert iu["ctl"] == [hex(base + 64 + 4 * k) for k in range(4)]
    assert iu["ctr"] == [hex(base + 8 + 8 * k) for k in range(4)]
print("ok")
PY
