# pmu-raw -M <Intel IIO metric> --per-device / --per-stack on the bundled SPR and GNR machines under
# pmu-sim (virtual time, the invented traffic of platforms/sim/rates.json): one line per PCIe device,
# BDF first, the IIO stack PMU and part it was counted on, lspci's name; table, CSV and JSON; errors.
# A stack with three parts has three inbound events for two counters (0-1, Linux
# icx_uncore_iio_constraints): they are multiplexed, every 100 ms of virtual time to keep the test short.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
"$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M iio_inbound_read_bw --per-device --duration 1 > "$T/out"
# The summary table without its elapsed-time line (the only wall-clock number in it).
grep -v 'seconds time elapsed' "$T/out" > "$T/table"
same_as raw_iio_spr_per_device "$T/table"
# CSV: BDF first, the value and unit, the metric with its PMU and part, lspci's name (quoted when it
# holds the separator).
"$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M iio_inbound_read_bw --per-device --duration 1 -x, > "$T/csv"
grep -qx '0000:16:00.0,,,iio_inbound_read_bw (uncore_iio_2 part 0),,,4.800,GB/s,Non-Volatile memory controller: Samsung Electronics Co Ltd NVMe SSD Controller PM9A1/PM9A3/980PRO' "$T/csv"
grep -qx '0000:27:00.0,,,"iio_inbound_read_bw (uncore_iio_4 part 0, shared with 1 other device)",,,4.000,GB/s,Ethernet controller: Mellanox Technologies MT2892 Family \[ConnectX-6 Dx\]' "$T/csv"
# JSON lines: one per device; per stack, one per stack PMU and socket.
"$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M iio_outbound_write_bw --per-device --duration 1 -j > "$T/json"
test "$(grep -c '"device":' "$T/json")" = "$(grep -c '^0000:' "$T/table")"
# Each distinct part of a stack is an event on its 4 counters: two metrics on the accelerator stack's
# three parts are 6 events, which take turns on the counters (multiplexed, scaled as perf scales);
# at the simulator's constant rates every device's value is the one its metric gives alone.
"$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M iio_inbound_read_bw,iio_outbound_write_bw --per-device --duration 1 \
  2> "$T/err" > "$T/both"
grep -qF '(multiplexed: 2 units (uncore_iio_0), 6 events in 2 sets each' "$T/both"
"$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M iio_outbound_write_bw --per-device --duration 1 2> /dev/null > "$T/write"
diff <(grep '^0000:.* iio_inbound_read_bw ' "$T/both") <(grep '^0000:.* iio_inbound_read_bw ' "$T/table")
diff <(grep '^0000:.* iio_outbound_write_bw ' "$T/both") <(grep '^0000:.* iio_outbound_write_bw ' "$T/write")
test "$(grep -c '^0000:.* iio_outbound_write_bw (uncore_iio_0 ' "$T/both")" -gt 0
"$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M iio_iotlb_lookups --per-stack --duration 1 -j > "$T/stacks"
test "$(grep -c '"metric":"iio_iotlb_lookups"' "$T/stacks")" = 20  # 10 IIO PMUs on each of 2 sockets
grep -q '"pmu":"uncore_iio_6","socket":1,"stack":"socket 1, stack PCIe2, root bus 0000:b7","metric-value":"6000000.000","metric-unit":"events/s"' "$T/stacks"
# Errors, before anything is programmed: exit 2, one line.
status 2 "$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_iio_2/event=0x1/ --per-device --duration 1 2> "$T/err"
grep -qx 'pmu-raw: error: --per-device goes with -M and an IIO metric (iio_inbound_read_bw...)' "$T/err"
status 2 "$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M iio_iotlb_misses --per-device --duration 1 2> "$T/err"
grep -q "^pmu-raw: error: -M 'iio_iotlb_misses' with --per-device: its events have no part filter" "$T/err"
status 2 "$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M spr_dram_read_bw --per-stack --duration 1 2> "$T/err"
grep -q "it counts on uncore_imc PMUs, not on the IIO stack PMUs" "$T/err"
status 2 "$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M iio_inbound_read_bw --per-device --per-socket 2> "$T/err"
grep -q 'are exclusive' "$T/err"
status 2 "$BIN/pmu-raw" --snapshot "$T/spr" --mux-interval 100 -M 'iio_inbound_read_bw/ch_mask=0x1/' --per-device --duration 1 2> "$T/err"
grep -q 'ch_mask is set per device by pmu-raw' "$T/err"
"$BIN/pmu-sim" create grace-2s "$T/grace" > /dev/null
status 2 "$BIN/pmu-raw" --snapshot "$T/grace" -M iio_inbound_read_bw --per-device --duration 1 2> "$T/err"
grep -q "has no IIO stack mapping" "$T/err"
# Granite Rapids: its own outbound read event; the accelerators are parts of their stacks.
"$BIN/pmu-sim" create gnr-2s "$T/gnr" > /dev/null
sim_start "$T/gnr"
"$BIN/pmu-raw" --snapshot "$T/gnr" --mux-interval 100 -M gnr_iio_outbound_read_bw --per-device --duration 1 > "$T/out"
grep -v 'seconds time elapsed' "$T/out" > "$T/table"
same_as raw_iio_gnr_per_device "$T/table"
