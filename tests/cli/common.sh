# Sourced by every CLI test: strict mode, a trace of each command, helpers, a scratch directory.
set -euo pipefail
export LC_ALL=C
trap 'echo "command failed: line $LINENO: $BASH_COMMAND" >&2' ERR
BIN=${PMUKIT_BIN:?PMUKIT_BIN is set by CTest}
DATA=${PMUKIT_TESTDATA:?}
EXPECTED=$(dirname "${BASH_SOURCE[0]}")/expected
# Debian's python3 (a version manager's shim in PATH can take seconds to start).
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
T=$(mktemp -d "${TMPDIR:-/tmp}/pmukit-cli-XXXXXX")
trap 'rm -rf "$T"' EXIT

# not CMD...: succeeds when CMD fails (like mold's).
not() { if "$@"; then return 1; else return 0; fi; }
# status N CMD...: runs CMD and checks its exit status.
status() { local want=$1; shift; local rc=0; "$@" || rc=$?; [ "$rc" -eq "$want" ] || { echo "exit $rc, wanted $want" >&2; return 1; }; }
# same_as NAME FILE: FILE equals expected/NAME.out
same_as() { diff -u "$EXPECTED/$1.out" "$2"; }
# skip REASON: CTest reports the test as skipped.
skip() { echo "skipped: $*"; exit 77; }
# sim_start DIR [ARGS...]: `pmu-sim run DIR ARGS` (virtual time) in the background until the script
# exits; returns once its clock page exists (a bounded wait, as tests/support/sim_process.cpp does).
SIM_PIDS=()
# stop_background: the processes the script started, the last first (a pmu-exporter restores its
# registers through the pmu-sim it was started on), each waited for.
stop_background() {
  local i
  for ((i = ${#SIM_PIDS[@]} - 1; i >= 0; i--)); do
    kill "${SIM_PIDS[i]}" 2> /dev/null || true
    wait "${SIM_PIDS[i]}" 2> /dev/null || true
  done
}
sim_start() {
  "$BIN/pmu-sim" run "$@" > /dev/null 2> "$T/pmu-sim.err" &
  SIM_PIDS+=($!)
  trap 'stop_background; rm -rf "$T"' EXIT
  local i
  for ((i = 0; i < 2000; i++)); do
    [ -e "$1/run/pmukit-sim/clock" ] && return 0
    kill -0 "${SIM_PIDS[-1]}" 2> /dev/null || { cat "$T/pmu-sim.err" >&2; return 1; }
    sleep 0.005
  done
  echo "pmu-sim did not publish its clock page" >&2
  return 1
}
# exporter_start CONFIG [ARGS...]: pmu-exporter in the background until the script exits (stopped
# before the pmu-sim it counts on); returns once it listens, with EXPORTER=http://HOST:PORT and
# EXPORTER_PID set. Its output is in $T/exporter.out and $T/exporter.err.
exporter_start() {
  # A previous start's output must not be taken for this one's (its port is closed by now).
  rm -f "$T/exporter.out" "$T/exporter.err"
  "$BIN/pmu-exporter" --config "$@" > "$T/exporter.out" 2> "$T/exporter.err" &
  EXPORTER_PID=$!
  SIM_PIDS+=($EXPORTER_PID)
  trap 'stop_background; rm -rf "$T"' EXIT
  local i
  for ((i = 0; i < 2000; i++)); do
    # The shell may get here before the background job has opened its output file.
    EXPORTER=$(sed -nE 's|^pmu-exporter: listening on (http://[^/]*)/.*|\1|p' "$T/exporter.out" 2> /dev/null || true)
    [ -n "$EXPORTER" ] && return 0
    kill -0 "$EXPORTER_PID" 2> /dev/null || { cat "$T/exporter.err" >&2; return 1; }
    sleep 0.005
  done
  echo "pmu-exporter did not start listening" >&2
  return 1
}
# prometheus_start JOB TARGET...: a Prometheus (Debian's package) scraping each TARGET (HOST:PORT)
# every 100 ms as job JOB, its config checked by promtool, in the background until the script
# exits; returns once it is ready, with PROM=http://127.0.0.1:PORT set. Its log is $T/prometheus.err.
prometheus_start() {
  local job=$1 targets="" t port
  shift
  for t in "$@"; do targets+="${targets:+, }\"$t\""; done
  port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  PROM=http://127.0.0.1:$port
  cat > "$T/prometheus.yml" << END
scrape_configs:
  - job_name: $job
    scrape_interval: 100ms
    scrape_timeout: 100ms
    static_configs:
      - targets: [$targets]
END
  promtool check config "$T/prometheus.yml" > /dev/null
  prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" --web.listen-address="127.0.0.1:$port" \
    --log.level=warn 2> "$T/prometheus.err" &
  SIM_PIDS+=($!)
  trap 'stop_background; rm -rf "$T"' EXIT
  "$PYTHON" "$(dirname "${BASH_SOURCE[0]}")/prometheus_api.py" wait-ready "$PROM/-/ready"
}
