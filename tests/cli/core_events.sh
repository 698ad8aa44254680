# Core events as perf takes them (rNNNN, cpu/.../, armv8_pmuv3_N/.../, the Grace core metrics):
# counted through the kernel's perf on this machine's core PMU, or -- where the kernel has none, as
# in a VM without a virtual PMU -- refused in one line that says so.
. "$(dirname "$0")/common.sh"
DEV=/sys/bus/event_source/devices
core=$(ls "$DEV" 2> /dev/null | grep -E '^(cpu|cpu_core|armv8_.*)$' | head -1 || true)
if [ -n "$core" ]; then
  # A core PMU: the raw event counts over a workload, as perf stat -e r11 counts it.
  "$BIN/pmu-raw" -x, -e r11 -- true > "$T/out" 2> "$T/err" || skip "perf cannot open the core PMU here: $(head -1 "$T/err")"
  grep -q ',r11' "$T/out"
  exit 0
fi
status 1 "$BIN/pmu-raw" -e r80C0 -- true 2> "$T/err"
grep -q "the CPU's core PMU does not count raw events here" "$T/err"
status 1 "$BIN/pmu-raw" -e 'cpu/event=0x3c/' -- true 2> "$T/err"
[ "$(cat "$T/err")" = "pmu-raw: error: event 'cpu/event=0x3c/': the CPU's core PMU 'cpu' is not among this machine's perf PMUs: core events are counted only through the kernel's perf, and it has no core PMU here (no core PMU driver, or a virtual machine without a virtual PMU)" ]
status 1 "$BIN/pmu-raw" -a -e 'armv8_pmuv3_0/event=0x11/' -- true 2> "$T/err"
grep -q "core PMU 'armv8_pmuv3_0' is not among" "$T/err"
status 1 "$BIN/pmu-raw" -a -M grace_ipc -- true 2> "$T/err"
[ "$(cat "$T/err")" = "pmu-raw: error: -M 'grace_ipc': a core metric, counted through the kernel's perf on the CPU's core PMU (armv8_pmuv3_N), and this machine's kernel has none (no core PMU driver, or a virtual machine without a virtual PMU)" ]
# Nothing was started: the workload of a refused run never runs.
status 1 "$BIN/pmu-raw" -e r80C0 -- touch "$T/ran" 2> /dev/null
[ ! -e "$T/ran" ]
