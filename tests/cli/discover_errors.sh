# Bad input: one clear line naming the file, exit 1; usage errors exit 2; -O help lists parameters.
. "$(dirname "$0")/common.sh"
printf '00:00.0 Host bridge\n00: 86 80 zz 11\n' > "$T/bad.dump"
status 1 "$BIN/pmu-discover" --pci --pci-dump "$T/bad.dump" 2> "$T/err"
[ "$(wc -l < "$T/err")" = 1 ]
grep -q "^pmu-discover: error: $T/bad.dump: dump: Malformed line (line 2: '00: 86 80 zz 11')$" "$T/err"
# A file that is not a dump at all: libpci reads no device; pmu-discover says so.
printf 'hello world\n' > "$T/notadump"
"$BIN/pmu-discover" --pci --pci-dump "$T/notadump" > "$T/out" 2> "$T/err"
test ! -s "$T/out"
grep -qx "pmu-discover: warning: $T/notadump: no PCI device in this file (expected lspci -xxx or -xxxx output)" "$T/err"
mkdir -p "$T/empty"
status 1 "$BIN/pmu-discover" --pci --snapshot "$T/empty" 2> "$T/err"
grep -q 'no PCI sysfs tree here' "$T/err"
status 2 "$BIN/pmu-discover" --pci --snapshot "$T/does-not-exist"
status 2 "$BIN/pmu-discover" --pci -O nonsense.path=/x 2> "$T/err"
grep -q "unknown parameter" "$T/err"
"$BIN/pmu-discover" -O help > "$T/out"
grep -q '^  sysfs.path *\/sys\/bus\/pci' "$T/out"
"$BIN/pmu-discover" --help > "$T/out"
grep -q -- '--snapshot DIR' "$T/out"
# An option no tool knows is an error like every other: the tool's name, "error:", exit 2.
for tool in pmu-discover pmu-raw pmu-rcmap pmu-sim pmu-exporter pmu-report; do
  status 2 "$BIN/$tool" --no-such-option 2> "$T/err"
  # pmu-sim, pmu-exporter and pmu-report first miss their subcommand or required argument.
  grep -qx "$tool: error: \(The following argument was not expected: --no-such-option\|.* is required\)" "$T/err"
  grep -qx "Try '$tool --help' for more information." "$T/err"
done
status 2 "$BIN/pmu-raw" -r 3 -e x 2> "$T/err"
grep -q '^pmu-raw: error: ' "$T/err"
