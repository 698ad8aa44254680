# -s and -d select devices with lspci's grammar; bad selectors are usage errors (exit 2).
. "$(dirname "$0")/common.sh"
D=(--pci-dump "$DATA/pci/fixtures.dump")
"$BIN/pmu-discover" --pci "${D[@]}" -d 1ded: > "$T/out"
grep -c '^0000' "$T/out" | grep -qx 1
grep -q '^0000:b0:00.0 ' "$T/out"
"$BIN/pmu-discover" --pci "${D[@]}" -s 0001:00:00.0 > "$T/out"
grep -q '\[200 v1\] DVSEC Vendor=10de ID=0004 Rev=1 Len=20' "$T/out"
"$BIN/pmu-discover" --pci "${D[@]}" -s 10: -d 8086:09a7 2>/dev/null > "$T/out"
[ "$(grep -c '^0000:10:' "$T/out")" = 5 ]
status 2 "$BIN/pmu-discover" --pci "${D[@]}" -s 'zz:1:2:3:4' 2> "$T/err"
grep -q "^pmu-discover: error: -s 'zz:1:2:3:4': " "$T/err"
status 2 "$BIN/pmu-discover" --pci "${D[@]}" -d 'xyz:' 2> "$T/err"
status 2 "$BIN/pmu-discover" --no-such-option
