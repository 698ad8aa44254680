#!/usr/bin/env python3
"""CPU time of time-division multiplexing: one rotation, and a -I 1000 interval with every unit 4x
oversubscribed, beside perf stat counting the same number of events on this machine's PMUs.

Usage: mux_cpu.py BUILD_DIR [SECONDS] [MUX_MS]

pmu-raw: the bundled spr-2s snapshot under `pmu-sim run --realtime` (pmu-raw refuses to program
         a static snapshot), so the cost includes a settle round trip to the simulator after each
         register phase of a rotation (on hardware there are none; the simulator's own CPU is not
         counted):
         every IMC box (MMIO, 4 counters) and every CHA box (MSR, 4 counters) gets 4 events (fits)
         or 16 (4x oversubscribed: 4 sets rotated every MUX_MS). A rotation reprograms every
         multiplexed box: stop, reset, configure 4 controls, start. CPU per rotation is the
         difference of the two runs' CPU over the number of rotations.
perf:    this machine (a VM) has no hardware PMU, and no PMU it has multiplexes: software events
         (cpu-clock, task-clock, page-faults ...) are always schedulable (the kernel's
         group_can_go_on: "Groups consisting entirely of software events can always go on"), msr
         events never run out of counters, and hw_breakpoint slots are reserved when an event is
         opened (ENOSPC there, never rotated). So the kernel's rotation cannot be measured here:
         what is compared is perf stat -a -I 1000 reading the same number of software events,
         the kernel-side cost of the reads alone, which rotation adds to on real hardware.
CPU time is user+system of the measuring process (wait4 rusage). The three commands run
interleaved (a round runs each once, in turn), five rounds: medians, with each one's range, and
the machine's load.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
mux_ms = int(sys.argv[3]) if len(sys.argv) > 3 else 4
tools = os.path.join(build, "tools")
REPEATS = 5


def cpu_of(argv):
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"mux_cpu: {' '.join(argv)} failed: {err.read().decode()}")
    return usage.ru_utime + usage.ru_stime


def interleaved_cpu(argvs):
    """CPU seconds of each command over REPEATS rounds, each round running every one in turn."""
    runs = [[] for _ in argvs]
    for _ in range(REPEATS):
        for argv, cpus in zip(argvs, runs):
            cpus.append(cpu_of(argv))
    return runs


def spread(cpus):
    return f"median {statistics.median(cpus):.3f} s (range {min(cpus):.3f}-{max(cpus):.3f})"


def events(pmu, n):
    return [f"{pmu}/event=0x{0x10 + i:02x},umask=0x01/" for i in range(n)]


with tempfile.TemporaryDirectory(prefix="pmukit-bench-mux-") as work:
    snap = os.path.join(work, "spr")
    subprocess.run([f"{tools}/pmu-sim", "create", "spr-2s", snap], check=True, stdout=subprocess.DEVNULL)
    inv = json.loads(subprocess.run([f"{tools}/pmu-discover", "--snapshot", snap, "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    boxes = sum(1 for u in inv["units"] if u["name"].startswith(("uncore_imc_", "uncore_cha_")))
    sim = subprocess.Popen([f"{tools}/pmu-sim", "run", snap, "--realtime"], stdout=subprocess.DEVNULL)
    time.sleep(0.5)  # the clock page in place before the first run
    base = [f"{tools}/pmu-raw", "--snapshot", snap, "--backend", "direct", "-x,", "-o", "/dev/null",
            "-I", "1000", "--duration", str(seconds), "--mux-interval", str(mux_ms)]
    argvs = []
    for per_box in (4, 16):
        argv = list(base)
        for e in events("uncore_imc", per_box) + events("uncore_cha", per_box):
            argv += ["-e", e]
        argvs.append(argv)
    if shutil.which("perf"):
        n = boxes * 16
        sw = ["cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations", "minor-faults",
              "major-faults", "alignment-faults", "emulation-faults"]
        evs = [sw[i % len(sw)] for i in range(n)]
        argvs.append(["perf", "stat", "-a", "-x,", "-o", "/dev/null", "-I", "1000", "-e", ",".join(evs), "--",
                      "sleep", str(seconds)])
    try:
        cpus = interleaved_cpu(argvs)
    finally:
        sim.terminate()
        sim.wait()
    runs = {4: statistics.median(cpus[0]), 16: statistics.median(cpus[1])}
    rotations = seconds * 1000 / mux_ms
    per_rotation = (runs[16] - runs[4]) / rotations
    print(f"pmu-raw direct, spr-2s snapshot, {boxes} IMC and CHA boxes of 4 counters, -I 1000 for {seconds:g} s:")
    print(f"  4 events per box:  CPU {spread(cpus[0])} ({1e3 * runs[4] / seconds:.2f} ms per interval)")
    print(f"  16 events per box: CPU {spread(cpus[1])} ({1e3 * runs[16] / seconds:.2f} ms per interval, "
          f"{rotations:.0f} rotations every {mux_ms} ms)")
    print(f"  one rotation of all {boxes} boxes: {1e6 * per_rotation:.1f} us "
          f"({1e6 * per_rotation / boxes:.2f} us per box); multiplexing costs "
          f"{100 * (runs[16] - runs[4]) / seconds:.2f}% of one core")
    if len(cpus) > 2:
        cpu = statistics.median(cpus[2])
        print(f"perf stat -a -I 1000, the same {boxes * 16} events as software events on {os.cpu_count()} CPUs "
              f"(never multiplexed): CPU {spread(cpus[2])} ({1e3 * cpu / seconds:.2f} ms per interval)")
    print(f"machine: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
