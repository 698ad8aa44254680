"""Helpers the bench scripts share: median wall/CPU time of a command, its max RSS and its syscall counts."""
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


def timed(cmd, runs):
    """Median wall and CPU seconds of `cmd` over `runs` runs (after a warm-up)."""
    walls, cpus = [], []
    for i in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i:
            walls.append(wall)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def max_rss(argv):
    """Max RSS (KiB) of one run, from /usr/bin/time: wait4's ru_maxrss of a child of this Python
    process would be at least Python's own (Linux keeps the high-water mark across exec)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, check=True)
    return int(out.stderr.strip().splitlines()[-1])
