# An idle pmu-sim blocks instead of polling: between requests its process sleeps in futex(2) on the
# clock page's doorbell (the kernel's wchan names a futex wait), in virtual and in real time, and a
# request still wakes it at once (pmu-sim advance returns; pmu-raw counts).
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create yitian "$T/y" > /dev/null
# blocked PID: looked at repeatedly, the process is in a futex wait (or, just woken, on its way back:
# wchan "0" while it runs or waits for a CPU), never in a timed sleep -- a poll with short sleeps
# is found in hrtimer_nanosleep. An idle server wakes at most every 100 ms to see a signal.
blocked() {
  local i w futex=0
  for ((i = 0; i < 10; i++)); do
    w=$(cat "/proc/$1/wchan")
    [[ $w == *sleep* ]] && { echo "pmu-sim $1 polls: found in '$w'" >&2; return 1; }
    [[ $w == *futex* ]] && futex=$((futex + 1))
    sleep 0.01
  done
  [ "$futex" -gt 0 ] || { echo "pmu-sim $1 was never found in a futex wait" >&2; return 1; }
}
sim_start "$T/y"
blocked "${SIM_PIDS[-1]}"
"$BIN/pmu-sim" advance "$T/y" 1000
"$BIN/pmu-raw" --snapshot "$T/y" -e dwc_rootport_10/rx_pcie_tlp_data_payload/ --duration 1 -x, > "$T/out"
grep -q '^542400000,,dwc_rootport_10/rx_pcie_tlp_data_payload/' "$T/out" || { cat "$T/out" >&2; exit 1; }
blocked "${SIM_PIDS[-1]}"
stop_background
SIM_PIDS=()
# Real time with a 1 s step: between steps it waits on the doorbell too.
sim_start "$T/y" --realtime --step-ms 1000
blocked "${SIM_PIDS[-1]}"
