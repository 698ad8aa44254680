#!/usr/bin/env python3
"""How pmu-raw's time grows with the size of its input: long -e lists and large event files.

Usage: input_scaling.py BUILD_DIR [OTHER_BUILD_DIR]

Each case runs at 1x, 2x and 4x its size; the time per item should stay flat (linear work). With a
second build directory (e.g. an older checkout) the same cases run there too, side by side. Every
case runs REPEATS (5; PMUKIT_BENCH_REPEATS) rounds, each round running every build once in turn
(interleaved): the median wall time and its range, and the machine's load.

  bare   N bare alias names (`tsc,tsc,...`): perf looks each up in every PMU of this machine
  named N `msr/tsc/` events: the PMU directory is read once, not N times
  file   a perfmon JSON file of N events (about 190 bytes each) and one -e name from it
Cases that need this machine's msr PMU are skipped without it. Every run counts 0.01 s.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

builds = sys.argv[1:] or ["build/default"]
REPEATS = max(1, int(os.environ.get("PMUKIT_BENCH_REPEATS", "5")))


def run(build, args):
    t = time.monotonic()
    subprocess.run([os.path.join(build, "tools", "pmu-raw")] + args + ["--duration", "0.01"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t


def event_file(tmp, n):
    path = os.path.join(tmp, f"events-{n}.json")
    events = [{"EventName": f"UNC_M_CAS_COUNT.RD_{i}", "EventCode": "0x05", "UMask": "0xCF", "Unit": "iMC",
               "ScaleUnit": "64Bytes", "PerPkg": "1", "BriefDescription": "read CAS commands issued to DRAM",
               "Counter": "0,1,2,3"} for i in range(n)]
    with open(path, "w") as f:
        json.dump({"Header": {}, "Events": events}, f)
    return path


have_msr = os.path.exists("/sys/bus/event_source/devices/msr/type")
with tempfile.TemporaryDirectory() as tmp:
    cases = []
    for n in (500, 1000, 2000):
        if have_msr:
            cases.append(("bare", n, ["-e", ",".join(["tsc"] * n)]))
            cases.append(("named", n, ["-e", ",".join(["msr/tsc/"] * n)]))
    for n in (50000, 100000, 200000):
        f = event_file(tmp, n)
        cases.append(("file", n, ["--event-file", f, "-e", "UNC_M_CAS_COUNT.RD_1", "--backend", "perf"]))
    print(f"{'case':<6} {'size':>8} " + " ".join(f"{os.path.basename(os.path.dirname(b + '/')):>22}" for b in builds))
    for name, n, args in cases:
        rounds = [[run(b, args) for b in builds] for _ in range(REPEATS)]
        cells = []
        for i in range(len(builds)):
            ts = [r[i] for r in rounds]
            t = statistics.median(ts)
            cells.append(f"{t:8.2f} s ({min(ts):.2f}-{max(ts):.2f}) {1e6 * t / n:8.1f} us/item")
        print(f"{name:<6} {n:>8} {' '.join(cells)}")
print(f"medians of {REPEATS} interleaved rounds (range); load average "
      f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
