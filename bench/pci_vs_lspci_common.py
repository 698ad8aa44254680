"""Helpers the bench scripts share: interleaved wall/CPU times of commands with their spread, max RSS,
syscall counts and the machine's load."""
import os
import re
import resource
import shutil
import statistics
import subprocess
import time


def syscalls(cmd):
    """pread64 and openat calls of one run, counted by strace -c; None without strace."""
    if not shutil.which("strace"):
        return None
    out = subprocess.run(["strace", "-f", "-c", "-e", "trace=pread64,openat"] + cmd, capture_output=True, text=True)
    counts = {m.group(2): int(m.group(1)) for m in re.finditer(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$",
                                                                 out.stderr, re.M)}
    return counts.get("pread64", 0), counts.get("openat", 0)


class Timing:
    """Wall and CPU seconds of every timed run of one command."""

    def __init__(self):
        self.walls, self.cpus = [], []

    @property
    def wall(self):
        return statistics.median(self.walls)

    @property
    def cpu(self):
        return statistics.median(self.cpus)

    def describe(self):
        """Median and interquartile range of wall and CPU time, in ms."""
        def one(xs):
            q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
            return f"{statistics.median(xs) * 1e3:7.1f} ms (IQR {q[0] * 1e3:.1f}-{q[2] * 1e3:.1f})"
        return f"wall {one(self.walls)}  cpu {one(self.cpus)}"


def timed(*cmds, runs):
    """Times each command `runs` times after one warm-up each, interleaved (a round runs every
    command once, in turn), so that all see the same background; returns a Timing per command."""
    timings = [Timing() for _ in cmds]
    for i in range(runs + 1):
        for cmd, timing in zip(cmds, timings):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if i:
                timing.walls.append(wall)
                timing.cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return timings


def load():
    """The machine's load while measuring: its load averages and CPU count."""
    return f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs"


def max_rss(argv):
    """Max RSS (KiB) of one run, from /usr/bin/time: wait4's ru_maxrss of a child of this Python
    process would be at least Python's own (Linux keeps the high-water mark across exec)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, check=True)
    return int(out.stderr.strip().splitlines()[-1])
