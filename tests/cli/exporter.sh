# pmu-exporter on pmu-sim's virtual time: the exposition in both formats (content negotiation,
# HELP/TYPE/UNIT for every family, Prometheus names in base units), totals that never reset on a
# scrape and go on across counter wraps, per-socket series, concurrent scrapes, /, /healthz, the
# configuration's errors, and registers restored on SIGTERM.
. "$(dirname "$0")/common.sh"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
# The test's own rates: 1e8 read CAS/s per memory channel; 1e14 write CAS/s, which wraps a 48-bit
# counter (2^48 = 2.8e14) every 2.8 s.
sim_start "$T/spr" --rate intel_spr_imc:0xcf05=1e8 --rate intel_spr_imc:0xf005=1e14
cat > "$T/box.json" << 'EOF'
{"listen": "127.0.0.1:0", "read_interval_ms": 1000, "metric_window_s": 2,
 "events": ["uncore_imc/cas_count_read/", {"event": "uncore_imc_0/cas_count_write/", "name": "writes"},
            "uncore_cha_0/clockticks/"],
 "metrics": ["spr_dram_read_bw", "dram_read"]}
EOF
exporter_start "$T/box.json" --snapshot "$T/spr"
grep -q '^pmu-exporter: listening on http://127.0.0.1:[0-9]*/ (pmu-sim virtual time)$' "$T/exporter.out"
grep -q '^pmu-exporter: uncore_imc_0.*: direct' "$T/exporter.err"
# m [ACCEPT]: /metrics (its response headers in $T/headers)
m() { curl -sS --fail -D "$T/headers" ${1:+-H "Accept: $1"} "$EXPORTER/metrics"; }
content_type() { tr -d '\r' < "$T/headers" | grep -qix "content-type: $1"; }
# sample 'NAME{LABELS}': its value in $T/now (what `advance` fetched last)
sample() { sed -n "s/^$1 //p" "$T/now"; }
# advance MS READS: move the virtual time, then wait (bounded) until the exporter has read READS times.
advance() {
  "$BIN/pmu-sim" advance "$T/spr" "$1"
  local i
  for ((i = 0; i < 1000; i++)); do
    m > "$T/now"
    grep -qx "pmukit_reads_total $2" "$T/now" && return 0
    sleep 0.01
  done
  echo "pmu-exporter did not read $2 times" >&2
  return 1
}
equals() { awk -v got="$1" -v want="$2" 'BEGIN { exit !(got != "" && got + 0 == want + 0) }' ||
  { echo "'$1', wanted $2" >&2; return 1; }; }
# The line comes after the first read: counters started, every series there at zero.
curl -sS --fail "$EXPORTER/healthz" > /dev/null
# Content negotiation: the text format by default, OpenMetrics when Prometheus asks for it.
m > "$T/text"
content_type 'text/plain; version=0.0.4; charset=utf-8'
m 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' > "$T/om"
content_type 'application/openmetrics-text; version=1.0.0; charset=utf-8'
test "$(tail -1 "$T/om")" = '# EOF'
grep -qx '# TYPE pmukit_uncore_bytes counter' "$T/om"
grep -qx '# UNIT pmukit_uncore_bytes bytes' "$T/om"
grep -qx '# TYPE pmukit_uncore_bytes_total counter' "$T/text"
grep -qx '# TYPE pmukit_backend info' "$T/om"
# Every sample's family has HELP and TYPE before it, in both formats.
for f in "$T/text" "$T/om"; do
  awk '/^# (HELP|TYPE) / { seen[$2 " " $3] = 1; next } /^#/ { next }
       { name = $1; sub(/\{.*/, "", name); fam = name; sub(/_(total|info)$/, "", fam)
         if (!((("HELP " name) in seen || ("HELP " fam) in seen) && (("TYPE " name) in seen || ("TYPE " fam) in seen))) {
           print FILENAME ": no HELP/TYPE for " name; bad = 1 } }
       END { exit bad }' "$f"
done
# Labels socket, pmu, event: per box, the event as written (or its name).
grep -qx 'pmukit_uncore_bytes_total{socket="1",pmu="uncore_imc_4",event="cas_count_read"} 0' "$T/text"
grep -qx 'pmukit_uncore_events_total{socket="0",pmu="uncore_cha_0",event="clockticks"} 0' "$T/text"
grep -qx 'pmukit_backend_info{pmu="uncore_imc_0",backend="direct"} 1' "$T/text"
test "$(grep -c '^pmukit_uncore_bytes_total{.*event="cas_count_read"}' "$T/text")" = 16
# Virtual time stands still: scrapes change nothing, and any number of them at once get the same.
scrapes=()
for i in $(seq 16); do
  m > "$T/same.$i" &
  scrapes+=($!)
done
wait "${scrapes[@]}"
for i in $(seq 16); do cmp "$T/text" "$T/same.$i"; done
# One second: 1e8 CAS x 64 bytes (Linux uncore_snbep.c: cas_count_read scale 6.103515625e-5 MiB)
# per channel; the CHA's clockticks at pmu-sim's 2e9/s (platforms/sim/rates.json).
advance 1000 2
equals "$(sample 'pmukit_uncore_bytes_total{socket="0",pmu="uncore_imc_0",event="cas_count_read"}')" 6.4e9
equals "$(sample 'pmukit_uncore_bytes_total{socket="1",pmu="uncore_imc_4",event="cas_count_read"}')" 6.4e9
equals "$(sample 'pmukit_uncore_events_total{socket="0",pmu="uncore_cha_0",event="clockticks"}')" 2e9
# The metric over its window: per socket, 8 channels x 6.4e9 bytes/s.
# A metric asked for by its own name keeps it; one asked for by its platform-neutral name
# ("dram_read": dram_read_bw here, amd_dram_read_bw on AMD, scf_local_mem_read_bw on Grace) is
# published under that name, with the platform as a label.
equals "$(sample 'pmukit_spr_dram_read_bw_bytes_per_second{socket="0",pmu="uncore_imc",platform="spr"}')" 5.12e10
equals "$(sample 'pmukit_dram_read_bytes_per_second{socket="0",pmu="uncore_imc",platform="spr"}')" 5.12e10
equals "$(sample 'pmukit_metric_window_seconds')" 1
grep -qx '# TYPE pmukit_spr_dram_read_bw_bytes_per_second gauge' "$T/now"
# A metric's inputs are its gauge's, not series of their own (spr_dram_read_bw's 0x05/0xcf).
test "$(grep -c 'event="event=' "$T/now")" = 0
grep -qx 'pmukit_build_info{version="0.1.0",platform="spr"} 1' "$T/now"
m application/openmetrics-text > "$T/om"
grep -qx '# UNIT pmukit_spr_dram_read_bw_bytes_per_second bytes_per_second' "$T/om"
# Totals, not deltas: a scrape resets nothing, and the next seconds add to the first. The write
# counter wraps its 48 bits in these 5 s: its total still grows by 1e14 x 64 bytes a second.
m > "$T/again"
cmp "$T/now" "$T/again"
advance 2000 3
equals "$(sample 'pmukit_uncore_bytes_total{socket="0",pmu="uncore_imc_0",event="cas_count_read"}')" 1.92e10
equals "$(sample 'pmukit_uncore_bytes_total{socket="0",pmu="uncore_imc_0",event="writes"}')" 1.92e16
advance 2000 4
equals "$(sample 'pmukit_uncore_bytes_total{socket="0",pmu="uncore_imc_0",event="writes"}')" 3.2e16
equals "$(sample 'pmukit_metric_window_seconds')" 2
# / says what is exported; /healthz the backends.
curl -sS --fail "$EXPORTER/" > "$T/index"
grep -q '^  uncore_imc_0/cas_count_write/ as writes$' "$T/index"
grep -q '^  spr_dram_read_bw$' "$T/index"
grep -q 'Read every 1 s (pmu-sim virtual time), series per-box; metrics over the last 2 s' "$T/index"
curl -sS --fail "$EXPORTER/healthz" > "$T/health"
grep -q '^  "status": "counting",$' "$T/health"
grep -q '^  "reads": 4,$' "$T/health"
grep -q '^    "uncore_imc: direct, 16 units",$' "$T/health"
# GET and HEAD only (evhttp answers 501 Not Implemented to others); no other paths.
test "$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$EXPORTER/metrics")" = 501
test "$(curl -sS -o /dev/null -w '%{http_code}' "$EXPORTER/metrics/x")" = 404
curl -sS --fail -I "$EXPORTER/metrics" | tr -d '\r' | grep -qix 'content-type: text/plain; version=0.0.4; charset=utf-8'
# SIGTERM: counting stops, registers go back (exit 0), the machine lock is free again.
kill "$EXPORTER_PID"
status 0 wait "$EXPORTER_PID"
"$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_imc_0/event=0x05,umask=0xcf/ -x, -- "$BIN/pmu-sim" advance "$T/spr" 100 2> /dev/null |
  grep -q '^20000000,'  # uncore_imc_0 is a unit on each socket
# Per socket: the boxes of an event summed per socket, the PMU as written.
sed 's/"read_interval_ms"/"granularity": "per-socket", "read_interval_ms"/' "$T/box.json" > "$T/socket.json"
exporter_start "$T/socket.json" --snapshot "$T/spr"
advance 1000 2
test "$(grep -c '^pmukit_uncore_bytes_total{.*event="cas_count_read"}' "$T/now")" = 2
equals "$(sample 'pmukit_uncore_bytes_total{socket="1",pmu="uncore_imc",event="cas_count_read"}')" 5.12e10
kill "$EXPORTER_PID"
status 0 wait "$EXPORTER_PID"
# The configuration: one line naming the file and the member, exit 1, nothing counted.
bad_config() { # bad_config JSON MESSAGE
  printf '%s\n' "$1" > "$T/bad.json"
  status 1 "$BIN/pmu-exporter" --snapshot "$T/spr" --config "$T/bad.json" 2> "$T/err"
  test "$(wc -l < "$T/err")" = 1
  grep -qF "pmu-exporter: error: $T/bad.json: $2" "$T/err" || { cat "$T/err" >&2; return 1; }
}
bad_config '{"events": ["uncore_imc/cas_count_read/"], "listn": "127.0.0.1:1"}' 'listn: unknown member'
bad_config '{"metrics": []}' 'events: nothing to count'
bad_config '{"events": ["uncore_imc/cas_count_read/"], "listen": "localhost"}' "listen: 'localhost': expected HOST:PORT"
bad_config '{"events": [{"event": "uncore_imc/cas_count_read/", "bytes_per_count": -4}]}' \
  'events[0].bytes_per_count: expected a positive number'
bad_config '{"events": ["uncore_imc/cas_count_read/"], "granularity": "per-cpu"}' \
  'granularity: expected "per-box" or "per-socket"'
bad_config '{"events": ["uncore_imc/cas_count_read/"],' 'not JSON'
printf '{"events": ["uncore_imc_0/cas_count_read/", "uncore_imc_0/cas_count_read/"]}' > "$T/bad.json"
status 1 "$BIN/pmu-exporter" --snapshot "$T/spr" --config "$T/bad.json" 2> "$T/err"
grep -qx "pmu-exporter: error: event 'cas_count_read' on uncore_imc_0: two configured events export this same series; give one a \"name\"" "$T/err"
# That error comes right after the HTTP server started: its stop must not wait for a server thread
# that has not begun serving yet (it once hung there, now and then). Twenty times in a row.
for i in $(seq 20); do status 1 "$BIN/pmu-exporter" --snapshot "$T/spr" --config "$T/bad.json" 2> /dev/null; done
printf '{"events": [{"event": "uncore_iio_2/event=0x83,umask=0x04,ch_mask=0x1/", "device": "0000:ff:1f.7"}]}' \
  > "$T/bad.json"
status 1 "$BIN/pmu-exporter" --snapshot "$T/spr" --config "$T/bad.json" 2> "$T/err"
grep -qx "pmu-exporter: error: $T/bad.json: device 0000:ff:1f.7: no such PCI device on this machine" "$T/err"
# A device label is the machine's (issue 35): the IIO PMU and part pmu-rcmap gives for the device...
DEVICE=0000:16:00.0
"$BIN/pmu-rcmap" --snapshot "$T/spr" --json "$DEVICE" > "$T/rcmap.json"
read -r PMU TERMS < <("$PYTHON" -c 'import json, sys
f = next(f for f in json.load(sys.stdin)["devices"][0]["filters"] if "ch_mask" in f["terms"])
print(f["pmu"], f["terms"])' < "$T/rcmap.json")
SEEN_BY=$("$PYTHON" -c 'import json, sys
print(" or ".join(f["pmu"] + " " + f["terms"] for f in json.load(sys.stdin)["devices"][0]["filters"]))' < "$T/rcmap.json")
OTHER=uncore_iio_1
[ "$PMU" != "$OTHER" ] || OTHER=uncore_iio_3
# ... another stack's PMU with the device's ch_mask (the README's old example), or the device's PMU
# with another part's ch_mask or none (the whole stack): refused in one line.
for event in "$OTHER/event=0x83,umask=0x04,$TERMS/" "$PMU/event=0x83,umask=0x04,ch_mask=0x2/" \
  "$PMU/event=0x83,umask=0x04/"; do
  printf '{"events": [{"event": "%s", "device": "%s"}]}' "$event" "$DEVICE" > "$T/bad.json"
  status 1 "$BIN/pmu-exporter" --snapshot "$T/spr" --config "$T/bad.json" 2> "$T/err"
  test "$(wc -l < "$T/err")" = 1
  grep -qxF "pmu-exporter: error: $T/bad.json: device $DEVICE is counted by $SEEN_BY (pmu-rcmap $DEVICE); the event $event counts other traffic" "$T/err" ||
    { cat "$T/err" >&2; exit 1; }
done
# A listen address in use: one line naming it.
"$PYTHON" -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(60)' \
  > "$T/port" &
HOLDER=$!
for ((i = 0; i < 1000; i++)); do [ -s "$T/port" ] && break; sleep 0.01; done
status 1 "$BIN/pmu-exporter" --snapshot "$T/spr" --config "$T/box.json" --listen "127.0.0.1:$(cat "$T/port")" 2> "$T/err"
grep -q "^pmu-exporter: error: listen 127.0.0.1:$(cat "$T/port"): cannot bind" "$T/err"
kill "$HOLDER"
