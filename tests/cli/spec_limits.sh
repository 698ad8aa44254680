# Limits agree end to end (issue 30, point 8): a spec with as many CPUs as pmukit takes (8,192,
# Linux's largest NR_CPUS) is written with cpu lists as Linux writes them -- ranges, "0-8191" --
# which every tool then reads within a sysfs attribute's page (4,096 bytes); it was written as
# 8,192 numbers (39,850 bytes) and refused by every tool after.
. "$(dirname "$0")/common.sh"
"$PYTHON" - "$PMUKIT_SRC/platforms/machines/spr-2s.json" "$T/big.json" << 'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["topology"] = {"sockets": 2, "dies_per_socket": 1, "cpus_per_die": 4096}
json.dump(spec, open(sys.argv[2], "w"))
PY
"$BIN/pmu-sim" create --spec "$T/big.json" "$T/big" > /dev/null
test "$(cat "$T/big/sys/devices/system/cpu/online")" = 0-8191
test "$(cat "$T/big/sys/devices/system/cpu/present")" = 0-8191
test "$(cat "$T/big/sys/devices/system/node/node0/cpulist")" = 0-4095
test "$(cat "$T/big/sys/devices/system/node/node1/cpulist")" = 4096-8191
"$BIN/pmu-discover" --snapshot "$T/big" > "$T/out"
grep -q 'uncore_imc_0' "$T/out"
# One CPU more than Linux can have is refused when the spec is read, naming the cap.
sed 's/"cpus_per_die": 4096/"cpus_per_die": 4097/' "$T/big.json" > "$T/over.json"
status 1 "$BIN/pmu-sim" create --spec "$T/over.json" "$T/over" 2> "$T/err"
grep -q '8192' "$T/err" || { cat "$T/err" >&2; exit 1; }
