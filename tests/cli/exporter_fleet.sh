# One configuration for a fleet (issue 35): packaging/examples/exporter-fleet.json, platform-neutral
# metric names only, on every bundled machine (each a pmu-sim on virtual time), one pmu-exporter per
# machine and one real Prometheus scraping them all. Each exporter starts, says its platform in
# pmukit_build_info, and the Grafana dashboard's DRAM panel has data for every instance: the
# neutral gauges (pmukit_dram_{read,write}_bytes_per_second, pmukit_dram_bytes_per_second where the
# PMUs count reads and writes together), or pmukit_metric_unavailable_info saying why this machine's
# PMUs cannot count it -- never a silently empty panel.
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
test "$(q "count(pmukit_dram_bytes_per_second{instance=\"${AT_OF[yitian]}\"})" | cut -d' ' -f2)" -ge 1
q "pmukit_metric_unavailable_info{instance=\"${AT_OF[yitian]}\"}" > "$T/yitian.unavailable"
grep -q "metric=dram_write,platform=${PLATFORM_OF[yitian]},reason=no PMU here counts it (" "$T/yitian.unavailable"
# The other panels' quantities, on the machines whose PMUs count them (the rest give the reason).
has() { test "$(q "count(pmukit_$1_bytes_per_second{instance=\"${AT_OF[$2]}\"})" | cut -d' ' -f2)" -ge 1 ||
  { echo "$2: no $1" >&2; exit 1; }; }
for m in spr-2s gnr-2s clx-2s icx-2s genoa-2s; do has dram_channel_read "$m"; has dram_channel_write "$m"; done
for m in grace-2s t410-2s yitian; do has pcie_to_device "$m"; has pcie_from_device "$m"; done
for m in grace-2s yitian; do has chip_link_rx "$m"; has chip_link_tx "$m"; done
q "pmukit_metric_unavailable_info{instance=\"${AT_OF[spr-2s]}\", metric=\"pcie_to_device\"}" > "$T/spr.pcie"
grep -q "platform=${PLATFORM_OF[spr-2s]},reason=no PMU here counts it (.*t410_pcie_read_bw on" "$T/spr.pcie"
