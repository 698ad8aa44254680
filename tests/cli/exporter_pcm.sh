# pmu-exporter with Intel PCM's names (naming "pcm", --naming pcm): what pcm-sensor-server
# publishes for DRAM traffic (DRAM_Reads/DRAM_Writes per socket {socket,source="uncore"} and for the
# system {aggregate="system",source="uncore"}, bytes since start; Persistent_Memory_* beside them),
# PCIe traffic (PCIe_Read_Bytes/PCIe_Write_Bytes) and UPI link traffic (Incoming_Data_Traffic_On_Link_N),
# on PCM's port 9738 by default, scraped by a real Prometheus, where the expressions of PCM's own
# Grafana dashboard (intel/pcm src/dashboard.cpp: rate(NAME{instance, socket}[4s]) and the
# aggregate="system" totals) return data.
. "$(dirname "$0")/common.sh"
API="$PYTHON $(dirname "$0")/prometheus_api.py"
command -v prometheus > /dev/null && command -v promtool > /dev/null ||
  skip "prometheus and promtool are not installed (scripts/install-deps.sh installs them)"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
# The test's own rates: 1e8 read and 5e7 write CAS/s per memory channel (8 a socket), 64 bytes each;
# 1e8 inbound read and 5e7 inbound write counts/s (4 bytes each) on each IIO stack PMU, a rate given
# with --rate counting as given whatever ch_mask selects; 9e8 received UPI data flits/s (RxL_FLITS.ALL_DATA,
# event 0x03 umask 0x0f, on SPR's raw-kind UPI units), 64 bytes every 9.
sim_start "$T/spr" --rate intel_spr_imc:0xcf05=1e8 --rate intel_spr_imc:0xf005=5e7 \
  --rate intel_snr_iio:0x0483=1e8 --rate intel_snr_iio:0x0183=5e7 --rate intel_spr_raw:0x0f03=9e8
# The default port with the PCM names is PCM's (when this machine has it free).
printf '{"naming": "pcm", "metrics": ["dram_read", "dram_write"]}' > "$T/pcm-default.json"
if ! (exec 3<> /dev/tcp/127.0.0.1/9738) 2> /dev/null; then
  exporter_start "$T/pcm-default.json" --snapshot "$T/spr"
  test "$EXPORTER" = http://127.0.0.1:9738
  kill "$EXPORTER_PID"
  status 0 wait "$EXPORTER_PID"
fi
printf '{"naming": "pmukit", "metrics": ["dram_read", "dram_write", "pcie_to_device", "pcie_from_device",
  "chip_link_rx", "chip_link_tx"], "listen": "127.0.0.1:0"}' > "$T/pcm.json"
# --naming overrides the file's, and --listen the port.
exporter_start "$T/pcm.json" --snapshot "$T/spr" --naming pcm
"$BIN/pmu-sim" advance "$T/spr" 1000
$API wait-sample "$EXPORTER/metrics" 'DRAM_Reads{aggregate="system",source="uncore"}' 102400000000
curl -sS --fail -D "$T/headers" "$EXPORTER/metrics" > "$T/pcm.txt"
tr -d '\r' < "$T/headers" | grep -qix 'content-type: text/plain; version=0.0.4; charset=utf-8'
# One second of counting: 8 channels x 1e8 x 64 bytes read per socket, half that written.
for s in 0 1; do
  grep -qx "DRAM_Reads{socket=\"$s\",source=\"uncore\"} 51200000000" "$T/pcm.txt"
  grep -qx "DRAM_Writes{socket=\"$s\",source=\"uncore\"} 25600000000" "$T/pcm.txt"
  grep -qx "Persistent_Memory_Reads{socket=\"$s\",source=\"uncore\"} 0" "$T/pcm.txt"
done
grep -qx 'DRAM_Writes{aggregate="system",source="uncore"} 51200000000' "$T/pcm.txt"
# PCIe: pcm-sensor-server's PCIe_Read_Bytes/PCIe_Write_Bytes (bytes PCIe devices read from and wrote
# to memory), printed in the system's counters: per socket {aggregate="system",source="uncore",socket}
# and summed. Here pcie_to_device/pcie_from_device on the 10 IIO stacks a socket of spr-2s counts:
# 10 x 1e8 x 4 bytes read, 10 x 5e7 x 4 written, in one second.
for s in 0 1; do
  grep -qx "PCIe_Read_Bytes{aggregate=\"system\",source=\"uncore\",socket=\"$s\"} 4000000000" "$T/pcm.txt"
  grep -qx "PCIe_Write_Bytes{aggregate=\"system\",source=\"uncore\",socket=\"$s\"} 2000000000" "$T/pcm.txt"
done
grep -qx 'PCIe_Read_Bytes{aggregate="system",source="uncore"} 8000000000' "$T/pcm.txt"
# UPI: Incoming_Data_Traffic_On_Link_N of each socket's link N (uncore_upi_N): PCM's own formula,
# received data flits x 64/9 bytes (its getDataBytesPerFlit), here 9e8 x 64 / 9 in one second. Four
# links a socket on spr-2s. PCM's outgoing traffic counts non-data flits too, which chip_link_tx does not.
for s in 0 1; do
  for l in 0 1 2 3; do
    grep -qx "Incoming_Data_Traffic_On_Link_$l{aggregate=\"system\",source=\"uncore\",socket=\"$s\"} 6400000000" \
      "$T/pcm.txt"
  done
done
if grep -q '^Outgoing_' "$T/pcm.txt"; then exit 1; fi
# No pmukit_ name in this mode: a PCM dashboard sees what pcm-sensor-server would serve.
if grep -q '^pmukit_' "$T/pcm.txt"; then exit 1; fi

prometheus_start pcm "${EXPORTER#http://}"
NODE=${EXPORTER#http://}
$API wait-value "$PROM" "DRAM_Reads{instance=\"$NODE\", socket=\"0\"}" 51200000000
# PCM's dashboard's expressions (src/dashboard.cpp), $node filled in: once two scrapes are in, each
# returns data (the rate is 0 here: virtual time stands still between scrapes).
$API wait-value "$PROM" "count(count_over_time(DRAM_Reads{instance=\"$NODE\", aggregate=\"system\"}[4s]) > 1)" 1
mem() { # the "Memory Bandwidth" panel's target for SELECTOR
  local e="" m
  for m in DRAM_Reads DRAM_Writes Persistent_Memory_Reads Persistent_Memory_Writes; do
    e+="${e:+ + }rate($m$1[4s])/1048576"
  done
  printf '%s' "$e"
}
for expr in "rate(DRAM_Reads{instance=\"$NODE\", socket=\"0\"}[4s])" \
  "rate(DRAM_Writes{instance=\"$NODE\", socket=\"1\"}[4s])" \
  "$(mem "{instance=\"$NODE\", socket=\"0\"}")" \
  "$(mem "{instance=\"$NODE\", aggregate=\"system\"}")"; do
  $API query "$PROM" "$expr" > "$T/answer"
  test "$(grep -c . "$T/answer")" = 1 || { echo "no data: $expr" >&2; exit 1; }
done
kill "$EXPORTER_PID"
status 0 wait "$EXPORTER_PID"
