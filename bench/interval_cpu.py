#!/usr/bin/env python3
"""CPU time of interval counting: what `-I 10` for 10 s costs the machine being measured.

Usage: interval_cpu.py BUILD_DIR direct [SECONDS] [INTERVAL_MS]
       interval_cpu.py BUILD_DIR perf   [SECONDS] [INTERVAL_MS]

direct: the bundled gnr-2s machine under `pmu-sim run --realtime`; pmu-raw programs and reads
        500 counters (80 CHA boxes x 4 and 32 IIO x 1 over MSR; 24 IMC x 4 over MMIO; 12 B2CMI
        x 4 and 4 PCIEX8 x 1 in PCI config space), one CSV line per box and event per interval;
        then 128 MMIO counters alone (24 IMC x 4, 4 B2CXL x 8). Setup and restore are measured by a one-interval run and taken out of the
        per-interval figure.
perf:   this machine's real PMUs through the perf backend (pmu-raw --backend perf) beside
        `perf stat -a -I` on the same event strings, both writing CSV to a file, seven runs each,
        alternating; the ratio is of the medians of CPU time per interval.
CPU time is user+system of the measuring process alone (wait4 rusage), so the simulator's own
work is not counted. Intervals are checked by counting the CSV lines each tool wrote.
System calls per interval (direct): `strace -c -f` of `-I 10 --interval-count 101` less that of
`--interval-count 1`, over 100 intervals, in total and per call (strace is Debian's `strace`).
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
mode = sys.argv[2] if len(sys.argv) > 2 else "direct"
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
interval = int(sys.argv[4]) if len(sys.argv) > 4 else 10
tools = os.path.join(build, "tools")

# 80*4 + 24*4 + 12*4 + 32*1 + 4*1 = 500 counters, each box's events in one group.
DIRECT_EVENTS = [
    "uncore_cha/event=0x00,umask=0x01/", "uncore_cha/event=0x35,umask=0x01/",
    "uncore_cha/event=0x36,umask=0x01/", "uncore_cha/event=0x50,umask=0x03/",
    "uncore_imc/event=0x05,umask=0xcf/", "uncore_imc/event=0x05,umask=0xf0/",
    "uncore_imc/event=0x01,umask=0x00/", "uncore_imc/event=0x02,umask=0x00/",
    "uncore_b2cmi/event=0x01,umask=0x00/", "uncore_b2cmi/event=0x02,umask=0x00/",
    "uncore_b2cmi/event=0x03,umask=0x00/", "uncore_b2cmi/event=0x04,umask=0x00/",
    "uncore_iio/event=0x01,umask=0x00/", "uncore_pciex8/event=0x01,umask=0x00/",
]
PERF_EVENTS = ["msr/tsc/", "software/config=0/", "software/config=1/", "software/config=2/",
               "software/config=3/", "software/config=4/"]


def measured(argv, **kw):
    """Runs argv to completion; returns (user+sys CPU seconds, wall seconds)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stderr=err, **kw)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"interval_cpu: {' '.join(argv)} exited {proc.returncode}: {err.read().decode()}")
    return usage.ru_utime + usage.ru_stime, time.monotonic() - start


def report(name, cpu, wall, lines, counters):
    intervals = lines / counters
    print(f"{name:10} {counters:4d} counters  {intervals:6.0f} intervals in {wall:5.2f} s  "
          f"CPU {cpu:6.3f} s = {100 * cpu / wall:5.2f}% of one core  "
          f"{1e6 * cpu / intervals:7.1f} us/interval  {1e9 * cpu / intervals / counters:6.1f} ns/counter")


def csv_lines(path):
    with open(path) as f:
        return sum(1 for line in f if line.strip() and not line.startswith("#"))


def direct(work, events, what):
    snap = os.path.join(work, what.replace(" ", "-"))
    subprocess.run([f"{tools}/pmu-sim", "create", "gnr-2s", snap], check=True, stdout=subprocess.DEVNULL)
    sim = subprocess.Popen([f"{tools}/pmu-sim", "run", snap, "--realtime"], stdout=subprocess.DEVNULL)
    try:
        args = [f"{tools}/pmu-raw", "--snapshot", snap, "--backend", "direct", "--per-box", "-x,"]
        for e in events:
            args += ["-e", e]
        # Counters programmed: every unit of each event's PMU type, on both sockets (the kernel's
        # uncore_cha_5 is one PMU spanning sockets, so a --per-box line sums two counters).
        inv = json.loads(subprocess.run([f"{tools}/pmu-discover", "--snapshot", snap, "--json"], check=True,
                                        capture_output=True, text=True).stdout)
        counters = sum(sum(1 for u in inv["units"] if re.fullmatch(re.escape(e.split("/")[0]) + r"_\d+", u["name"]))
                       for e in events)
        one = os.path.join(work, "one.csv")
        measured(args + ["-I", "100", "--interval-count", "1", "-o", one])
        rows = csv_lines(one)
        # Setup (discovery, lock, save, program) and teardown (restore) once, from a one-interval run.
        setup_cpu, _ = measured(args + ["-I", str(interval), "--interval-count", "1", "-o", "/dev/null"])
        out = os.path.join(work, "direct.csv")
        cpu, wall = measured(args + ["-I", str(interval), "--duration", str(seconds), "-o", out])
        intervals = csv_lines(out) / rows
        print(f"pmu-raw direct, {what}: {counters} counters ({rows} per-box lines) on the simulated gnr-2s, "
              f"-I {interval} for {seconds:g} s: {intervals:.0f} intervals in {wall:.2f} s")
        print(f"  total CPU {cpu:.3f} s = {100 * cpu / wall:.2f}% of one core; setup+restore {setup_cpu:.3f} s")
        steady = (cpu - setup_cpu) / (intervals - 1)
        print(f"  per interval {1e6 * steady:.1f} us = {1e9 * steady / counters:.0f} ns per counter "
              f"({100 * steady * 1000 / interval:.2f}% of one core at -I {interval})")
        syscalls(args)
    finally:
        sim.terminate()
        sim.wait()


def strace_counts(argv, work):
    """{syscall: calls} of argv and its children, from strace -c."""
    summary = os.path.join(work, "strace.txt")
    subprocess.run(["strace", "-c", "-f", "-o", summary] + argv, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    counts = {}
    with open(summary) as f:
        for line in f:
            # % time, seconds, usecs/call, calls, [errors,] syscall
            fields = line.split()
            if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
                counts[fields[-1]] = int(fields[3])
    return counts


def syscalls(args, intervals=100):
    if not shutil.which("strace"):
        print("  system calls: strace is not installed (apt-get install strace)")
        return
    with tempfile.TemporaryDirectory(prefix="pmukit-strace-") as work:
        base = args + ["-I", "10", "-o", "/dev/null", "--interval-count"]
        one = strace_counts(base + ["1"], work)
        many = strace_counts(base + [str(intervals + 1)], work)
    per = {k: (many.get(k, 0) - one.get(k, 0)) / intervals for k in set(one) | set(many)}
    per = {k: v for k, v in sorted(per.items(), key=lambda kv: -kv[1]) if v >= 0.05}
    print(f"  system calls per interval (strace -c -f, {intervals} intervals): {sum(per.values()):.1f} = "
          + ", ".join(f"{k} {v:.1f}" for k, v in per.items()))


def perf(work, repeats=7):
    if not shutil.which("perf"):
        sys.exit("interval_cpu: perf is not installed (apt-get install linux-perf)")
    counters = len(PERF_EVENTS)
    ours = os.path.join(work, "pmu-raw.csv")
    raw = [f"{tools}/pmu-raw", "--backend", "perf", "-x,", "-I", str(interval), "--duration", str(seconds), "-o", ours]
    for e in PERF_EVENTS:
        raw += ["-e", e]
    theirs = os.path.join(work, "perf.csv")
    stat = ["perf", "stat", "-a", "-x,", "-I", str(interval), "-o", theirs, "-e", ",".join(PERF_EVENTS),
            "--", "sleep", str(seconds)]
    # Alternate the two so that both see the same background; a VM's IPI and migration costs vary
    # from minute to minute, so compare medians of per-interval CPU.
    per = {"pmu-raw": [], "perf stat": []}
    for _ in range(repeats):
        for name, argv, out in (("pmu-raw", raw, ours), ("perf stat", stat, theirs)):
            cpu, wall = measured(argv)
            lines = csv_lines(out)
            report(name, cpu, wall, lines, counters)
            per[name].append(cpu / (lines / counters))
    med = {k: statistics.median(v) for k, v in per.items()}
    print(f"median CPU per interval: pmu-raw {1e6 * med['pmu-raw']:.1f} us, perf stat {1e6 * med['perf stat']:.1f} us; "
          f"ratio pmu-raw/perf stat {med['pmu-raw'] / med['perf stat']:.2f}")


with tempfile.TemporaryDirectory(prefix="pmukit-bench-") as work:
    if mode == "direct":
        direct(work, DIRECT_EVENTS, "MSR and MMIO")
        # MMIO alone: no system call per counter (MSR and config reads are one pread each).
        mmio = [e for e in DIRECT_EVENTS if e.startswith("uncore_imc")]
        mmio += [f"uncore_b2cxl/event=0x{i + 1:02x},umask=0x00/" for i in range(8)]
        direct(work, mmio, "MMIO only")
    else:
        perf(work)
