#!/usr/bin/env python3
"""Times scrapes of pmu-exporter against Prometheus's node exporter, on loopback, in the same run.

Usage: bench/exporter_scrape.py [BUILD_DIR] [RUNS] [EVENTS]
  BUILD_DIR  the CMake build directory (default build/default)
  RUNS       rounds (default 21, at least 5); each round makes one scrape of each kind below
  EVENTS     how many events pmu-exporter exports (default 5: 2 IMC and 3 CHA events on the
             spr-2s machine under pmu-sim, about 21 KB of exposition; 1 gives about 4 KB)

Kinds of scrape, interleaved within every round (ours, theirs, ours, theirs, ...):
  kept-alive  GET /metrics on a connection kept open across rounds, as Prometheus scrapes
  fresh       a new connection for one GET /metrics, closed after it
Prints the median, the interquartile range and the extremes of each, in milliseconds, the response
size, the server's CPU per scrape (its /proc/PID/schedstat run time, nanoseconds, over the
kept-alive scrapes) and the machine's load average. The node exporter is Debian's
prometheus-node-exporter (/usr/bin/prometheus-node-exporter); without it only pmu-exporter is timed.
"""
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
runs = max(5, int(sys.argv[2]) if len(sys.argv) > 2 else 21)
n_events = int(sys.argv[3]) if len(sys.argv) > 3 else 5
EVENTS = ["uncore_imc/cas_count_read/", "uncore_imc/cas_count_write/", "uncore_cha/event=0x1/",
          "uncore_cha/event=0x2/", "uncore_cha/event=0x3/"]
NODE_EXPORTER = shutil.which("prometheus-node-exporter")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc):
    for _ in range(3000):  # 30 s at most: start-up, not what is measured
        if proc.poll() is not None:
            sys.exit(f"the server exited ({proc.returncode}) before listening on {port}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.01)
    sys.exit(f"nothing listens on {port}")


def read_response(s, pending):
    while b"\r\n\r\n" not in pending:
        chunk = s.recv(1 << 16)
        if not chunk:
            raise OSError("closed by the server")
        pending += chunk
    head, _, rest = pending.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = next((int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length:")), None)
    if length is None:  # chunked (the node exporter): read to the last chunk
        body = b""
        while True:
            while b"\r\n" not in rest:
                rest += s.recv(1 << 16)
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            while len(rest) < size + 2:
                rest += s.recv(1 << 16)
            body, rest = body + rest[:size], rest[size + 2:]
            if size == 0:
                return len(body), rest
    while len(rest) < length:
        chunk = s.recv(1 << 16)
        if not chunk:
            raise OSError("closed by the server")
        rest += chunk
    return length, rest[length:]


class Server:
    def __init__(self, name, port, proc):
        self.name, self.port, self.proc = name, port, proc
        self.kept = socket.create_connection(("127.0.0.1", port))
        self.pending = b""
        self.times = {"kept-alive": [], "fresh": []}
        self.cpu_ns = 0
        self.size = 0

    def request(self):
        # Accept-Encoding identity: both send plain text, so the sizes compare
        return b"GET /metrics HTTP/1.1\r\nHost: bench\r\nAccept-Encoding: identity\r\n\r\n"

    def kept_alive(self):
        cpu = run_time_ns(self.proc.pid)
        start = time.perf_counter()
        self.kept.sendall(self.request())
        self.size, self.pending = read_response(self.kept, self.pending)
        self.times["kept-alive"].append(time.perf_counter() - start)
        self.cpu_ns += run_time_ns(self.proc.pid) - cpu

    def fresh(self):
        start = time.perf_counter()
        with socket.create_connection(("127.0.0.1", self.port)) as s:
            s.sendall(self.request())
            read_response(s, b"")
        self.times["fresh"].append(time.perf_counter() - start)


def run_time_ns(pid):
    """Time on CPU of every thread of PID, from the scheduler (nanoseconds, not ticks)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def summary(seconds):
    ms = sorted(t * 1000 for t in seconds)
    q = statistics.quantiles(ms, n=4)
    return f"median {statistics.median(ms):7.3f} ms  IQR {q[0]:.3f}-{q[2]:.3f}  min {ms[0]:.3f}  max {ms[-1]:.3f}"


def start_pmu_exporter(tmp):
    root = os.path.join(tmp, "spr")
    subprocess.run([f"{build}/tools/pmu-sim", "create", "spr-2s", root], check=True, stdout=subprocess.DEVNULL)
    sim = subprocess.Popen([f"{build}/tools/pmu-sim", "run", root], stdout=subprocess.DEVNULL)
    clock = os.path.join(root, "run/pmukit-sim/clock")
    for _ in range(3000):
        if os.path.exists(clock):
            break
        time.sleep(0.01)
    port = free_port()
    config = os.path.join(tmp, "exporter.json")
    with open(config, "w") as f:
        json.dump({"listen": f"127.0.0.1:{port}", "read_interval_ms": 1000, "events": EVENTS[:n_events]}, f)
    proc = subprocess.Popen([f"{build}/tools/pmu-exporter", "--config", config, "--snapshot", root],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port, proc)
    return sim, Server("pmu-exporter", port, proc)


def start_node_exporter():
    port = free_port()
    proc = subprocess.Popen([NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port, proc)
    return Server("node exporter", port, proc)


def main():
    with tempfile.TemporaryDirectory(prefix="pmukit-bench-") as tmp:
        sim, ours = start_pmu_exporter(tmp)
        servers = [ours] + ([start_node_exporter()] if NODE_EXPORTER else [])
        try:
            for s in servers:  # a warm-up of each kind, not counted
                s.kept_alive(), s.fresh()
                s.times = {"kept-alive": [], "fresh": []}
                s.cpu_ns = 0
            for _ in range(runs):
                for s in servers:
                    s.kept_alive()
                for s in servers:
                    s.fresh()
        finally:
            for p in [s.proc for s in servers] + [sim]:
                p.terminate()
                p.wait()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{runs} rounds, interleaved; load average {load}; {os.cpu_count()} CPUs")
    for s in servers:
        print(f"{s.name}: {s.size} bytes a response, {s.cpu_ns / runs / 1000:.0f} us of CPU a kept-alive scrape")
        for kind, seconds in s.times.items():
            print(f"  {kind:10}  {summary(seconds)}")
    if len(servers) == 2:
        for kind in ("kept-alive", "fresh"):
            ratio = statistics.median(ours.times[kind]) / statistics.median(servers[1].times[kind])
            print(f"{kind}: pmu-exporter / node exporter = {ratio:.2f} (medians)")
    else:
        print("prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter): ours only")


if __name__ == "__main__":
    main()
