# pmu-exporter scraped by a real Prometheus (Debian's prometheus package): pmu-sim runs a 2-socket
# Sapphire Rapids machine on virtual time, pmu-exporter counts on it and stamps each read with its
# virtual time, Prometheus scrapes it every 100 ms on a free localhost port. The test moves the
# virtual time 200 ms at a time, each time once Prometheus holds the previous read, then asks
# Prometheus's HTTP API: rate() equals the rates the simulator models, every panel of the
# Grafana dashboard returns data, and promtool accepts the exposition.
. "$(dirname "$0")/common.sh"
API="$PYTHON $(dirname "$0")/prometheus_api.py"
command -v prometheus > /dev/null && command -v promtool > /dev/null ||
  skip "prometheus and promtool are not installed (scripts/install-deps.sh installs them)"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
# The test's own rates, per PMU unit: read CAS 1e8/s and write CAS 5e7/s per memory channel, IIO
# DATA_REQ_OF_CPU.MEM_READ (event 0x83, umask 0x04: 4-byte units) 2.5e7/s per IIO unit.
sim_start "$T/spr" --rate intel_spr_imc:0xcf05=1e8 --rate intel_spr_imc:0xf005=5e7 --rate intel_snr_iio:0x0483=2.5e7
# A device and the IIO PMU that counts it, as pmu-rcmap maps it.
DEVICE=0000:16:00.0
"$BIN/pmu-rcmap" --snapshot "$T/spr" --json "$DEVICE" > "$T/rcmap.json"
IIO_PMU=$("$PYTHON" -c 'import json, sys
print(next(f for f in json.load(sys.stdin)["devices"][0]["filters"] if "ch_mask" in f["terms"])["pmu"])' \
  < "$T/rcmap.json")
# The exporter binds an event on the PMU type to the device's PMU and part itself.
IIO_EVENT=uncore_iio/event=0x83,umask=0x04/
cat > "$T/exporter.json" << EOF
{"listen": "127.0.0.1:0", "read_interval_ms": 200, "metric_window_s": 1, "timestamps": true,
 "events": ["uncore_imc/cas_count_read/", "uncore_imc/cas_count_write/",
            {"event": "$IIO_EVENT", "name": "pcie_read", "bytes_per_count": 4, "device": "$DEVICE"},
            "uncore_cha/clockticks/", "uncore_m2m/clockticks/", "uncore_upi/clockticks/"],
 "metrics": ["dram_read", "dram_write", "dram_channel_read", "dram_channel_write", "pcie_to_device", "chip_link_rx"]}
EOF
exporter_start "$T/exporter.json" --snapshot "$T/spr"
# promtool lints the text format: HELP and TYPE, names, units, counters' _total.
curl -sS --fail "$EXPORTER/metrics" > "$T/metrics.txt"
promtool check metrics < "$T/metrics.txt"

prometheus_start pmukit "${EXPORTER#http://}"
# Read k is stamped (k - 1) x 200 ms after the first: move on once Prometheus has it.
$API advance "$PROM" "$BIN/pmu-sim" "$T/spr" 200 12
AT=$($API query "$PROM" 'timestamp(pmukit_reads_total)' | cut -d' ' -f2)
q() { $API query "$PROM" "$1" "$AT"; }
# Memory: 8 channels x 1e8 CAS/s x 64 bytes (Linux uncore_snbep.c: cas_count_read scale
# 6.103515625e-5 MiB = 64 bytes) = 5.12e10 bytes/s read per socket, 2.56e10 written.
q 'sum by (socket) (rate(pmukit_uncore_bytes_total{event="cas_count_read"}[1s]))' > "$T/read"
printf '{socket=0} 51200000000\n{socket=1} 51200000000\n' | diff - "$T/read"
q 'sum by (socket) (rate(pmukit_uncore_bytes_total{event="cas_count_write"}[1s]))' > "$T/write"
printf '{socket=0} 25600000000\n{socket=1} 25600000000\n' | diff - "$T/write"
# (Answers go to files first: grep -q in a pipe may exit before the writer is done, and under
# pipefail the writer's broken pipe fails the line.)
q 'rate(pmukit_uncore_bytes_total{pmu="uncore_imc_3",event="cas_count_read"}[1s])' > "$T/imc3"
grep -q ' 6400000000$' "$T/imc3"
# The exporter's own metric gauges, over its 1 s window, say the same.
q 'pmukit_dram_read_bytes_per_second' > "$T/bw"
test "$(cut -d' ' -f2 "$T/bw" | sort -u)" = 51200000000
# PCIe: the device's IIO part, 2.5e7 4-byte units/s = 1e8 bytes/s, labelled with the device, on
# the socket the device hangs from only (the IIO PMU of that name on socket 1 counts other devices).
q "rate(pmukit_uncore_bytes_total{device=\"$DEVICE\"}[1s])" > "$T/device"
grep -c . "$T/device" | grep -qx 1
grep -q "device=$DEVICE,event=pcie_read,.*,pmu=$IIO_PMU,.*socket=0} 100000000$" "$T/device"
# Every panel of the Grafana dashboard returns data (its variables as Grafana would fill them): a
# figure (pcie_to_device per IIO stack, chip_link_rx per UPI link on Intel), or the reason this
# machine's PMUs cannot give it.
$API dashboard "$PROM" "$PMUKIT_SRC/packaging/examples/grafana-dashboard.json" "$AT" '$instance=.*' \
  '$__rate_interval=1s'
# SIGTERM: the exporter stops counting and puts every register back (exit 0).
kill "$EXPORTER_PID"
status 0 wait "$EXPORTER_PID"
