# One configuration for a fleet (issue 35): packaging/examples/exporter-fleet.json, platform-neutral
# metric names only, on every bundled machine (each a pmu-sim on virtual time), one pmu-exporter per
# machine and one real Prometheus scraping them all. Each exporter starts, says its platform in
# pmukit_build_info, and the Grafana dashboard's DRAM panel has data for every instance: the
# neutral gauges (pmukit_dram_{read,write}_bytes_per_second, pmukit_dram_bytes_per_second where the
# PMUs count reads and writes together), or pmukit_metric_unavailable_info saying why this machine's
# PMUs cannot count it -- never a silently empty panel. The PCIe panel has the Intel IIO stacks'
# traffic (pcie_to_device/pcie_from_device per stack, labelled stack), the chip-to-chip panel the
# UPI links' (chip_link_rx/tx), with the values the simulator models.
. "$(dirname "$0")/common.sh"
API="$PYTHON $(dirname "$0")/prometheus_api.py"
command -v prometheus > /dev/null && command -v promtool > /dev/null ||
  skip "prometheus and promtool are not installed (scripts/install-deps.sh installs them)"
MACHINES=(spr-2s gnr-2s clx-2s icx-2s genoa-2s milan-2s grace-2s t410-2s yitian)
for m in "${MACHINES[@]}"; do
  "$BIN/pmu-sim" create "$m" "$T/$m" > /dev/null
  sim_start "$T/$m"
done
declare -A AT_OF PLATFORM_OF
TARGET_LIST=()
for m in "${MACHINES[@]}"; do
  exporter_start "$PMUKIT_SRC/packaging/examples/exporter-fleet.json" --snapshot "$T/$m" --listen 127.0.0.1:0
  AT_OF[$m]=${EXPORTER#http://}
  TARGET_LIST+=("${EXPORTER#http://}")
  # One read of one second of virtual time: the metric gauges have a window.
  "$BIN/pmu-sim" advance "$T/$m" 1000
  $API wait-sample "$EXPORTER/metrics" pmukit_reads_total 2
  curl -sS --fail "$EXPORTER/metrics" > "$T/$m.metrics"
  promtool check metrics < "$T/$m.metrics"
  # Each series once (a metric summing several events, AMD's DF channels, is one series per socket).
  sed -n 's/^\([^#][^ ]*\) .*/\1/p' "$T/$m.metrics" | sort | uniq -d > "$T/$m.dup"
  test ! -s "$T/$m.dup" || { echo "$m: series exported twice:" >&2; cat "$T/$m.dup" >&2; exit 1; }
done
prometheus_start pmukit "${TARGET_LIST[@]}"
# Every target scraped a few times (a rate needs two samples in its window; the last target to be
# scraped once has only one), each after its two reads.
$API wait-value "$PROM" 'count(count_over_time(pmukit_reads_total[1s]) >= 3 and pmukit_reads_total == 2)' \
  "${#MACHINES[@]}"
AT=$($API query "$PROM" 'max(timestamp(pmukit_reads_total))' | cut -d' ' -f2)
q() { $API query "$PROM" "$1" "$AT"; }
for m in "${MACHINES[@]}"; do
  # The platform label is the machine's (pmu-discover names it: the CPU model's, or on Arm the one
  # its PMUs' kinds name), never empty, on the build info and every gauge.
  platform=$("$BIN/pmu-discover" --snapshot "$T/$m" --json | "$PYTHON" -c 'import json, sys
print((json.load(sys.stdin)["platform"] or {}).get("name", ""))')
  test -n "$platform" || { echo "$m: pmu-discover names no platform" >&2; exit 1; }
  PLATFORM_OF[$m]=$platform
  q "pmukit_build_info{instance=\"${AT_OF[$m]}\", platform=\"$platform\"}" > "$T/info"
  test "$(grep -c . "$T/info")" = 1 || { echo "$m: platform $platform: $(q pmukit_build_info)" >&2; exit 1; }
  # Every panel of the dashboard has data for this machine: a figure, or why its PMUs cannot give it.
  $API dashboard "$PROM" "$PMUKIT_SRC/packaging/examples/grafana-dashboard.json" "$AT" \
    "\$instance=${AT_OF[$m]}" '$__rate_interval=5s' > "$T/$m.panel" || { cat "$T/$m.panel" >&2; exit 1; }
done
# No series that carries the platform (build info, gauges, unavailable metrics) has it empty.
LABELLED='{__name__=~"pmukit_build_info|pmukit_.*_per_second|pmukit_metric_unavailable_info", platform=""}'
q "$LABELLED" > "$T/no-platform"
test ! -s "$T/no-platform" || { echo "series without a platform:" >&2; cat "$T/no-platform" >&2; exit 1; }
# Where the PMUs give the quantity, the neutral name has it; where they do not, the reason is given.
for m in spr-2s gnr-2s clx-2s icx-2s genoa-2s grace-2s t410-2s; do
  test "$(q "count(pmukit_dram_read_bytes_per_second{instance=\"${AT_OF[$m]}\"})" | cut -d' ' -f2)" = 2 ||
    { echo "$m: no dram_read per socket" >&2; exit 1; }
done
test "$(q "count(pmukit_dram_bytes_per_second{instance=\"${AT_OF[milan-2s]}\"})" | cut -d' ' -f2)" = 2
q "pmukit_metric_unavailable_info{instance=\"${AT_OF[milan-2s]}\"}" > "$T/milan.unavailable"
grep -q "metric=dram_read,platform=${PLATFORM_OF[milan-2s]},reason=no PMU here counts it (" "$T/milan.unavailable"
# The reason names each metric and PMU type once (a type as perf names it: uncore_imc_N, not its %u pattern).
grep "metric=dram_read," "$T/milan.unavailable" | sed 's/.*counts it (//; s/)[^)]*$//' | tr ',' '\n' | sed 's/^ *//' |
  sort | uniq -d > "$T/repeated"
test ! -s "$T/repeated" || { echo "named twice: $(cat "$T/repeated")" >&2; exit 1; }
if grep -q "%u" "$T/milan.unavailable"; then echo "a PMU name pattern shown: $(cat "$T/milan.unavailable")" >&2; exit 1; fi
test "$(q "count(pmukit_dram_bytes_per_second{instance=\"${AT_OF[yitian]}\"})" | cut -d' ' -f2)" -ge 1
q "pmukit_metric_unavailable_info{instance=\"${AT_OF[yitian]}\"}" > "$T/yitian.unavailable"
grep -q "metric=dram_write,platform=${PLATFORM_OF[yitian]},reason=no PMU here counts it (" "$T/yitian.unavailable"
# The other panels' quantities, on the machines whose PMUs count them (the rest give the reason).
has() { test "$(q "count(pmukit_$1_bytes_per_second{instance=\"${AT_OF[$2]}\"})" | cut -d' ' -f2)" -ge 1 ||
  { echo "$2: no $1" >&2; exit 1; }; }
for m in spr-2s gnr-2s clx-2s icx-2s genoa-2s; do has dram_channel_read "$m"; has dram_channel_write "$m"; done
for m in grace-2s t410-2s yitian spr-2s gnr-2s clx-2s icx-2s; do has pcie_to_device "$m"; has pcie_from_device "$m"; done
for m in grace-2s yitian spr-2s gnr-2s clx-2s icx-2s; do has chip_link_rx "$m"; has chip_link_tx "$m"; done
for m in genoa-2s milan-2s; do
  q "pmukit_metric_unavailable_info{instance=\"${AT_OF[$m]}\", metric=\"pcie_to_device\"}" > "$T/$m.pcie"
  grep -q "platform=${PLATFORM_OF[$m]},reason=no PMU here counts it (.*iio_inbound_read_bw on uncore_iio_N" "$T/$m.pcie"
done
for m in genoa-2s milan-2s t410-2s; do
  q "pmukit_metric_unavailable_info{instance=\"${AT_OF[$m]}\", metric=\"chip_link_rx\"}" > "$T/$m.link"
  grep -q "platform=${PLATFORM_OF[$m]},reason=no PMU here counts it (.*upi_link_rx_bw on uncore_upi_N" "$T/$m.link"
done
# The values, as the simulator models the traffic. val EXPR EXPECTED: EXPR is one series, within 1e-9 of EXPECTED.
val() {
  q "$1" > "$T/val"
  test "$(grep -c . "$T/val")" = 1 || { echo "not one series: $1: $(cat "$T/val")" >&2; exit 1; }
  awk -v e="$2" '{ d = $NF - e; if (d < 0) d = -d; exit !(d <= 1e-9 * e) }' "$T/val" ||
    { echo "$1: $(cat "$T/val"), expected $2" >&2; exit 1; }
}
# Intel PCIe per IIO stack: the stack's inbound reads (pcie_to_device) and writes (pcie_from_device),
# 4 bytes a count, with every part of the stack in ch_mask. pmu-sim's invented IIO traffic
# (platforms/sim/rates.json, iio_traffic) counts a rule's rate (8e8 reads, 4e8 writes a second) x the
# stack's share (by the n of uncore_iio_<n>: stack_share[n % 8]) x the shares of the parts ch_mask
# selects (part_share). SPR's PCIe0 stack is uncore_iio_2 (share 1.5) with parts 0-7 (1 + 0.5 +
# 0.25 + 0.75 + 0.125 + 0.375 + 0.625 + 0.875 = 4.5); its DMI stack is uncore_iio_1 (share 2), part 7.
I=${AT_OF[spr-2s]}
val "pmukit_pcie_to_device_bytes_per_second{instance=\"$I\", socket=\"0\", stack=\"PCIe0\", pmu=\"uncore_iio_2\"}" \
  "$((800000000 * 3 / 2 * 9 / 2 * 4))"
val "pmukit_pcie_from_device_bytes_per_second{instance=\"$I\", socket=\"1\", stack=\"PCIe0\"}" \
  "$((400000000 * 3 / 2 * 9 / 2 * 4))"
val "pmukit_pcie_to_device_bytes_per_second{instance=\"$I\", socket=\"1\", stack=\"DMI\", pmu=\"uncore_iio_1\"}" \
  "$((800000000 * 2 * 7 / 8 * 4))"
# UPI: data flits, 9 to a 64-byte line (perf's upi_data_receive_bw/transmit_bw per link); pmu-sim's
# default rate, 1e6 flits a second on each link.
val "pmukit_chip_link_rx_bytes_per_second{instance=\"$I\", socket=\"1\", pmu=\"uncore_upi_0\"}" \
  "$(awk 'BEGIN { printf "%.6f", 1e6 * 64 / 9 }')"
val "pmukit_chip_link_tx_bytes_per_second{instance=\"${AT_OF[icx-2s]}\", socket=\"0\", pmu=\"uncore_upi_1\"}" \
  "$(awk 'BEGIN { printf "%.6f", 1e6 * 64 / 9 }')"
