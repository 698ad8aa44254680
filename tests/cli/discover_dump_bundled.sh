# The bundled synthetic Intel machines: full inventories, labelled synthetic, all three access types.
. "$(dirname "$0")/common.sh"
for m in spr-2s gnr-2s; do
  "$BIN/pmu-discover" --machine "$m" > "$T/$m.out"
  same_as "discover_dump_$m" "$T/$m.out"
  grep -q '^\*\*\* SYNTHETIC' "$T/$m.out"
  for access in MSR MMIO PCI; do grep -q " $access " "$T/$m.out"; done
done
# GNR: three tables (dies) per socket.
[ "$(grep -c '^  Die ' "$T/gnr-2s.out")" = 6 ]
"$BIN/pmu-discover" --machine gnr-2s --json > "$T/gnr.json"
python3 - "$T/gnr.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["synthetic"].startswith("SYNTHETIC 2-socket Intel Xeon 6")
assert [(t["socket"], t["die"]) for t in doc["intel_tables"]] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
names = {u["name"] for u in doc["units"]}
assert {"uncore_imc_11", "uncore_pciex16_3", "uncore_b2cmi_5", "uncore_pcu", "uncore_ubox"} <= names
assert doc["warnings"] == []
print("ok")
PY
# Not grep -q: it would stop reading after the match, and the list (over 4 KiB since genoa-2s and
# milan-2s) would then end pmu-discover with SIGPIPE, which pipefail turns into a failure.
"$BIN/pmu-discover" --list-machines | grep '^spr-2s ' > /dev/null
