# pmu-discover --pci prints every device with BARs and capabilities, lspci -vvv style.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-discover" --pci --pci-dump "$DATA/pci/fixtures.dump" > "$T/out" 2> "$T/err"
same_as discover_pci_text "$T/out"
# Broken chains are reported on stderr, one line each, naming the BDF and offset.
grep -q '^pmu-discover: warning: 0000:10:00.0 @0x160: extended capability list loops$' "$T/err"
grep -q '^pmu-discover: warning: 0000:10:03.0 @0x120: next pointer 0xf0 outside 0x100..0xffc$' "$T/err"
