# Broken tables: one clear warning each, naming the device and offset; partial results still shown.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create --spec "$DATA/machines/bad-tables.json" "$T/m" > /dev/null
"$BIN/pmu-discover" --snapshot "$T/m" > "$T/out" 2> "$T/err"
same_as discover_dump_bad.err "$T/err"
grep -q 'uncore_pcu$' "$T/out"
grep -q 'uncore_cha_126$' "$T/out"
not grep -q 'uncore_cha_127$' "$T/out"
