# pmu-exporter against hostile clients on loopback (issue 30, point 5), and kept-alive scrapes that
# must not wait for delayed ACKs (issue 33, point 1): connections that trickle a
# request a byte at a time (slowloris) are closed at the request timeout while a scrape is served;
# idle connections beyond the cap make room for new ones; with its descriptors exhausted (ulimit -n)
# it rests between accept(2) attempts instead of spinning, says so in a bounded number of lines,
# and answers scrapes again once the clients go away. Every wait is bounded generously; what is
# checked is what happened (closes, counts, lines), never how fast.
. "$(dirname "$0")/common.sh"
CLIENTS="$PYTHON $(dirname "$0")/http_clients.py"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
config() { # config MAX_CONNECTIONS REQUEST_TIMEOUT_MS IDLE_TIMEOUT_MS
  printf '{"listen": "127.0.0.1:0", "read_interval_ms": 1000, "events": ["uncore_imc_0/cas_count_read/"],
 "max_connections": %s, "request_timeout_ms": %s, "idle_timeout_ms": %s}\n' "$1" "$2" "$3" > "$T/cfg.json"
}
port() { sed 's|.*:||' <<< "$EXPORTER"; }
# health KEY: a number of /healthz's "http" object
health() { curl -sS --max-time 60 "$EXPORTER/healthz" | "$PYTHON" -c "import json, sys; print(json.load(sys.stdin)['http']['$1'])"; }
scrape() { curl -sS --fail --max-time 60 "$EXPORTER/metrics" | grep -q '^pmukit_uncore_bytes_total{'; }
stop_exporter() { kill "$EXPORTER_PID"; status 0 wait "$EXPORTER_PID"; }

# Prometheus keeps its connections: scrapes on one kept-alive connection are each answered, and the
# server's side has TCP_NODELAY, so the end of a response does not wait (Nagle's algorithm) for the
# client's delayed ACK, 40 ms a scrape. Seeing the server's socket (pidfd_getfd) takes root.
config 8 300 60000
exporter_start "$T/cfg.json" --snapshot "$T/spr"
$CLIENTS keepalive "$(port)" 5 "$([ "$(id -u)" = 0 ] && echo "$EXPORTER_PID" || echo 0)" > "$T/keep"
grep -qx 'answered 5' "$T/keep"
[ "$(id -u)" != 0 ] || grep -qx 'nodelay 1' "$T/keep"
stop_exporter

# Slowloris at the cap: 8 connections, each a byte every 50 ms, none ever complete. Each is closed,
# and a scrape made during the attack is answered.
config 8 300 60000
exporter_start "$T/cfg.json" --snapshot "$T/spr"
baseline_fds=$(ls "/proc/$EXPORTER_PID/fd" | wc -l)
$CLIENTS slowloris "$(port)" 8 > "$T/slow" &
SLOW=$!
# The scrape comes after the 8 have connected. Before that, a slowloris connection accepted after
# the scrape's, with the scrape's request not yet read (idle), would close the scrape to make room:
# curl's "Empty reply from server", seen under load.
for ((i = 0; i < 6000; i++)); do grep -q '^open ' "$T/slow" && break; sleep 0.01; done
grep -qx 'open 8' "$T/slow"
scrape
status 0 wait "$SLOW"
grep -qx 'closed 8' "$T/slow"
# Each was closed at the request timeout -- or, when the scrape came while its first bytes were
# still unread (an idle connection then), evicted to make room for the scrape.
timed_out=$(health timed_out)
test "$timed_out" -ge 1
test $((timed_out + $(health evicted_idle))) -ge 8
grep -q '^pmu-exporter: closed a connection from 127.0.0.1: its request not complete within the request timeout' \
  "$T/exporter.err"
stop_exporter

# 100 idle connections against a cap of 8: each new one takes the place of the longest idle, so a
# scrape gets through, and no more than 8 are ever open.
config 8 300 60000
exporter_start "$T/cfg.json" --snapshot "$T/spr"
$CLIENTS idle "$(port)" 100 > "$T/idle" &
IDLE=$!
for ((i = 0; i < 6000; i++)); do [ -s "$T/idle" ] && break; sleep 0.01; done
grep -qx 'open 100' "$T/idle"
scrape
test "$(health connections)" -le 8
test "$(health evicted_idle)" -ge 1
kill "$IDLE"; wait "$IDLE" 2> /dev/null || true
stop_exporter

# Out of descriptors: 4 more than it uses idle, a cap it cannot reach, 100 idle clients. accept(2)
# fails with EMFILE; the listener rests (10 ms doubling to 1 s), so failures stay few -- a spin
# makes millions -- and are said at most once per 10 s. Once the clients are gone, scrapes work.
config 64 300 1000
rm -f "$T/exporter.out" "$T/exporter.err"
(
  ulimit -n $((baseline_fds + 4))
  exec "$BIN/pmu-exporter" --config "$T/cfg.json" --snapshot "$T/spr" > "$T/exporter.out" 2> "$T/exporter.err"
) &
EXPORTER_PID=$!
SIM_PIDS+=($EXPORTER_PID)
for ((i = 0; i < 6000; i++)); do
  EXPORTER=$(sed -nE 's|^pmu-exporter: listening on (http://[^/]*)/.*|\1|p' "$T/exporter.out" 2> /dev/null || true)
  [ -n "$EXPORTER" ] && break
  sleep 0.01
done
test -n "$EXPORTER"
start=$(date +%s)
$CLIENTS idle "$(port)" 100 > "$T/idle" &
IDLE=$!
for ((i = 0; i < 6000; i++)); do grep -q 'accept: Too many open files' "$T/exporter.err" && break; sleep 0.01; done
grep -q '^pmu-exporter: accept: Too many open files: new connections wait [0-9]* ms' "$T/exporter.err"
# No wait here: the polling above already let the exporter fail for up to 10 ms past its first
# failure, and a spinning accept loop fails thousands of times in that time (the bound below).
kill "$IDLE"; wait "$IDLE" 2> /dev/null || true
scrape
elapsed=$(($(date +%s) - start + 1))
failures=$(health accept_failures)
echo "accept failures while out of descriptors: $failures in about $elapsed s"
test "$failures" -ge 1
# A spin fails about a million times a second; resting (10 ms doubling, from 10 ms again after each
# accept that an idle timeout made room for) fails at most 100 times a second: the bound only tells
# the two apart, it measures no speed.
test "$failures" -le $((100 * elapsed))
test "$(grep -c 'accept: ' "$T/exporter.err")" -le $((1 + elapsed / 10))
stop_exporter
