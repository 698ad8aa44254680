# The bundled Xeons before the discovery tables (issue 32): pmu-discover lists the boxes of the
# kernel's fixed tables under the kernel's PMU names, with no warning. icx-2s (Ice Lake-SP): 12 IMC
# channels a socket in MMIO, 32 CHAs and IIO/IRP/M2PCIe over MSRs, M2M/UPI/M3UPI in config space
# (Linux uncore_snbep.c icx_uncore_imc, icx_uncore_chabox, ... icx_uncore_pci_ids[]); clx-2s (Cascade
# Lake): the skx_uncore_* boxes.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-discover" --list-machines > "$T/list"
grep '^icx-2s .*SYNTHETIC.*Ice Lake-SP' "$T/list" > /dev/null
grep '^clx-2s .*SYNTHETIC.*Cascade Lake' "$T/list" > /dev/null
"$BIN/pmu-discover" --machine icx-2s > "$T/icx.out"
grep -q '^Platform: Intel Xeon (Ice Lake-SP) (icx)$' "$T/icx.out"
grep -q 'no PMON discovery tables: 146 units from the kernel' "$T/icx.out"
for access in MSR MMIO PCI; do grep -q " $access " "$T/icx.out"; done
for m in icx-2s clx-2s; do
  "$BIN/pmu-discover" --machine "$m" --json > "$T/$m.json"
done
"$PYTHON" - "$T/icx-2s.json" "$T/clx-2s.json" <<'PY'
import collections, json, sys
icx, clx = (json.load(open(p)) for p in sys.argv[1:3])
for doc in (icx, clx):
    assert doc["warnings"] == [], doc["warnings"]
    assert doc["synthetic"].startswith("SYNTHETIC 2-socket")
def per_socket(doc):
    n = collections.Counter()
    for u in doc["units"]:
        n[(u["type_name"], u["socket"])] += 1
    return n
n = per_socket(icx)
want = {"imc": 12, "cha": 32, "iio": 6, "irp": 6, "m2pcie": 6, "m2m": 4, "upi": 3, "m3upi": 3, "pcu": 1}
for t, k in want.items():
    assert n[(t, 0)] == k and n[(t, 1)] == k, (t, n[(t, 0)], n[(t, 1)])
names = {u["name"] for u in icx["units"]}
assert {"uncore_imc_0", "uncore_imc_11", "uncore_cha_31", "uncore_iio_5", "uncore_m2m_3", "uncore_m2pcie_5",
        "uncore_upi_2", "uncore_m3upi_2", "uncore_irp_5", "uncore_pcu"} <= names
imc = {u["intel-uncore"]["access"] for u in icx["units"] if u["type_name"] == "imc"}
assert imc == {"MMIO"}, imc
n = per_socket(clx)
for t, k in {"imc": 6, "cha": 28, "m2m": 2, "upi": 3, "m2pcie": 4}.items():
    assert n[(t, 0)] == k and n[(t, 1)] == k, (t, n[(t, 0)], n[(t, 1)])
print("ok")
PY
