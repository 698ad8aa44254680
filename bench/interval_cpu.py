#!/usr/bin/env python3
"""CPU time of interval counting: what `-I 10` for 10 s costs the machine being measured.

Usage: interval_cpu.py BUILD_DIR direct  [SECONDS] [INTERVAL_MS] [REPEATS]
       interval_cpu.py BUILD_DIR perf    [SECONDS] [INTERVAL_MS]
       interval_cpu.py BUILD_DIR scaling [SECONDS] [INTERVAL_MS] [REPEATS]
       interval_cpu.py BUILD_DIR startup [RUNS]
       interval_cpu.py BUILD_DIR floor   [SECONDS] [INTERVAL_MS] [REPEATS] [COUNTERS...]

direct: the bundled gnr-2s machine under `pmu-sim run --realtime`; pmu-raw programs and reads
        500 counters (80 CHA boxes x 4 and 32 IIO x 1 over MSR; 24 IMC x 4 over MMIO; 12 B2CMI
        x 4 and 4 PCIEX8 x 1 in PCI config space), one CSV line per box and event per interval;
        then 128 MMIO counters alone (24 IMC x 4, 4 B2CXL x 8). Setup and restore are measured by a
        one-interval run each round and taken out of that round's per-interval figure; median and
        spread over REPEATS (default 5) rounds.
perf:   this machine's real PMUs through the perf backend (pmu-raw --backend perf) beside
        `perf stat -a -I` on the same event strings, both writing CSV to a file, seven runs each,
        alternating; the ratio is of the medians of CPU time per interval, each side's spread shown.
scaling: 16, 64, 256, 1024 and 4096 MMIO counters (IMC boxes x 4, the gnr-2s spec with its IMC
        groups widened) under pmu-sim, and in the same run `perf stat -a -I` on as many events of
        this machine's software and msr PMUs (counting every CPU, as perf stat -a does), the two
        interleaved round by round, REPEATS (default 5) rounds; each side's per-interval CPU is its
        run's less its own one-interval run's (set-up alike), over the intervals between: median and
        spread per interval and per counter of each, and what each counter adds from one size to
        the next (the slope, without the timer wakeup and write every interval pays); the
        per-counter cost must stay flat (linear growth).
startup: median CPU and wall time and max RSS of each tool's start (`--version`) against
        /bin/true, and of `pmu-discover --dump` and `pmu-raw --interval-count 1` (500 counters) on the
        simulated gnr-2s against `lspci -vvv` on its tree and `perf stat -a --interval-count 1` on
        this machine (six events, and msr/tsc/ alone); every command once a round, RUNS rounds.
floor:  pmu-raw --per-box -x, against bench/interval_floor (a hand-written C loop: the counters'
        pages mapped, one load per counter, integers formatted by hand, one write per interval) on
        the same MMIO counters (1024 and 4096 by default: the scaling machines) and the same
        number of intervals, the two interleaved; each side's per-interval CPU is its run's CPU less
        its one-interval run's, over the intervals between; median and spread over REPEATS (default
        5) rounds, and the ratio of the medians. Both write the same CSV lines (checked).
CPU time is user+system of the measuring process alone (wait4 rusage), so the simulator's own
work is not counted; no user/kernel split (rusage samples it at ticks). Every mode prints the
machine's load average. Intervals are checked by counting the CSV lines each tool wrote.
System calls per interval (direct): `strace -c -f` of `-I 10 --interval-count 101` less that of
`--interval-count 1`, over 100 intervals, in total and per call (strace is Debian's `strace`).
"""
import json
import os
import resource
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pci_vs_lspci_common import max_rss  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
mode = sys.argv[2] if len(sys.argv) > 2 else "direct"
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
interval = int(sys.argv[4]) if len(sys.argv) > 4 else 10
# direct, scaling and floor: each measurement run this many times (rounds), the median kept and the
# spread shown (a VM's CPU time varies from run to run by more than the differences measured).
repeats = max(1, int(sys.argv[5])) if len(sys.argv) > 5 else 5
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


LAST = {"user": 0.0, "sys": 0.0}  # the last measured run's CPU, split: user and kernel


def measured(argv, **kw):
    """Runs argv to completion; returns (user+sys CPU seconds, wall seconds); LAST keeps the split."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stderr=err, **kw)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"interval_cpu: {' '.join(argv)} exited {proc.returncode}: {err.read().decode()}")
    LAST["user"], LAST["sys"] = usage.ru_utime, usage.ru_stime
    return usage.ru_utime + usage.ru_stime, time.monotonic() - start


def report(name, cpu, wall, lines, counters):
    intervals = lines / counters
    print(f"{name:10} {counters:4d} counters  {intervals:6.0f} intervals in {wall:5.2f} s  "
          f"CPU {cpu:6.3f} s = {100 * cpu / wall:5.2f}% of one core  "
          f"{1e6 * cpu / intervals:7.1f} us/interval  {1e9 * cpu / intervals / counters:6.1f} ns/counter")


def csv_lines(path):
    with open(path) as f:
        return sum(1 for line in f if line.strip() and not line.startswith("#"))


def direct(work, events, what, spec=None):
    """pmu-raw's steady CPU per interval on the simulated machine (gnr-2s, or `spec`); returns
    (counters, seconds per interval)."""
    snap = os.path.join(work, what.replace(" ", "-"))
    source = ["--spec", spec] if spec else ["gnr-2s"]
    subprocess.run([f"{tools}/pmu-sim", "create"] + source + [snap], check=True, stdout=subprocess.DEVNULL)
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
        out = os.path.join(work, "direct.csv")
        runs = []
        for _ in range(repeats):  # each round: a one-interval run (setup and restore), then the long one
            setup_cpu, _ = measured(args + ["-I", str(interval), "--interval-count", "1", "-o", "/dev/null"])
            cpu, wall = measured(args + ["-I", str(interval), "--duration", str(seconds), "-o", out])
            intervals = csv_lines(out) / rows
            runs.append(((cpu - setup_cpu) / (intervals - 1), cpu, wall, setup_cpu, intervals))
        steady, cpu, wall, setup_cpu, intervals = sorted(runs)[len(runs) // 2]
        print(f"pmu-raw direct, {what}: {counters} counters ({rows} per-box lines) on the simulated gnr-2s, "
              f"-I {interval} for {seconds:g} s: {intervals:.0f} intervals in {wall:.2f} s (median of {repeats})")
        print(f"  total CPU {cpu:.3f} s = {100 * cpu / wall:.2f}% of one core; setup+restore {setup_cpu:.3f} s")
        print(f"  per interval {spread([r[0] for r in runs])} = {1e9 * steady / counters:.0f} ns per counter "
              f"({100 * steady * 1000 / interval:.2f}% of one core at -I {interval})")
        # No user/kernel split: rusage divides a process's CPU between them by sampling at ticks,
        # which at these sizes gave negative kernel figures.
        syscalls(args)
        print(f"  {load()}")
        return counters, steady
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
    for name, values in per.items():
        print(f"{name:10} CPU per interval {spread(values)}")
    print(f"ratio of medians pmu-raw/perf stat {med['pmu-raw'] / med['perf stat']:.2f}; {load()}")


IMC_EVENTS = [e for e in DIRECT_EVENTS if e.startswith("uncore_imc")]
SIZES = [16, 64, 256, 1024, 4096]


def mmio_spec(work, counters):
    """The gnr-2s spec with `counters` / 4 IMC boxes (4 counters each), spread over its four IMC
    groups, every box's registers 0x4000 apart from the group's first box as gnr-2s places them."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "platforms", "machines", "gnr-2s.json")) as f:
        spec = json.load(f)
    groups = [u for t in spec["intel_tables"] for u in t["units"] if u["type"] == 6 and u["access"] == "mmio"]
    per = counters // 4 // len(groups)
    for g, u in enumerate(groups):
        first = int(u["box_ctl"][0], 16)
        u["ids"] = f"{g * per}-{(g + 1) * per - 1}" if per > 1 else str(g * per)
        u["box_ctl"] = [hex(first + 0x4000 * i) for i in range(per)]
    path = os.path.join(work, f"mmio-{counters}.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


def raise_open_files(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard) if hard != resource.RLIM_INFINITY else need, hard))


def served_mmio_machine(work, n, name):
    """n MMIO counters (mmio_spec) under `pmu-sim run --realtime`, once it serves them: the snapshot,
    the simulator's process (the caller stops it) and pmu-raw's --per-box CSV command on them."""
    snap = os.path.join(work, f"{name}-{n}")
    subprocess.run([f"{tools}/pmu-sim", "create", "--spec", mmio_spec(work, n), snap], check=True,
                   stdout=subprocess.DEVNULL)
    sim = subprocess.Popen([f"{tools}/pmu-sim", "run", snap, "--realtime"], stdout=subprocess.DEVNULL)
    subprocess.run([f"{tools}/pmu-sim", "wait", snap], check=True)
    raw = [f"{tools}/pmu-raw", "--snapshot", snap, "--backend", "direct", "--per-box", "-x,", "-I", str(interval)]
    for e in IMC_EVENTS:
        raw += ["-e", e]
    return snap, sim, raw


def scaling_size(work, n, intervals):
    """pmu-raw on n MMIO counters under pmu-sim and perf stat -a on n events of this machine's
    software and msr PMUs (counting every CPU, as perf stat -a does), interleaved round by round;
    each side's per-interval CPU is its run's CPU less its own one-interval run's (set-up and
    teardown alike), over the intervals between. Returns (counters, {side: [seconds per interval]})."""
    snap, sim, raw = served_mmio_machine(work, n, "scaling")
    try:
        ours, theirs = os.path.join(work, "raw.csv"), os.path.join(work, "perf.csv")
        subprocess.run(raw + ["--interval-count", "1", "-o", ours], check=True, stderr=subprocess.DEVNULL)
        counters = csv_lines(ours)  # a --per-box line per counter
        events = [PERF_EVENTS[i % len(PERF_EVENTS)] for i in range(counters)]
        raise_open_files(counters * os.cpu_count() + 64)  # perf: events x CPUs file descriptors
        stat = ["perf", "stat", "-a", "-x,", "-I", str(interval), "-e", ",".join(events)]
        sides = {"pmu-raw": lambda k: raw + ["--interval-count", str(k), "-o", ours],
                 "perf stat": lambda k: stat + ["--interval-count", str(k), "-o", theirs]}
        per = {name: [] for name in sides}
        for _ in range(repeats):
            for name, argv in sides.items():
                one, _ = measured(argv(1))
                cpu, _ = measured(argv(intervals))
                out = ours if name == "pmu-raw" else theirs
                if csv_lines(out) != intervals * counters:  # perf stat -a -x,: a line per event per interval
                    sys.exit(f"interval_cpu: {name} wrote {csv_lines(out)} lines, not {intervals} x {counters}")
                per[name].append((cpu - one) / (intervals - 1))
        return counters, per
    finally:
        sim.terminate()
        sim.wait()


def scaling(work):
    if not shutil.which("perf"):
        sys.exit("interval_cpu: perf is not installed (apt-get install linux-perf)")
    intervals = max(2, round(seconds * 1000 / interval))
    rows = []
    for n in SIZES:
        counters, per = scaling_size(work, n, intervals)
        for name, values in per.items():
            print(f"{counters:5d} counters  {name:9} {spread(values)}")
        rows.append((counters, statistics.median(per["pmu-raw"]), statistics.median(per["perf stat"])))
    print(f"\n-I {interval} --interval-count {intervals}, {repeats} interleaved rounds; medians of CPU per interval "
          f"(us) and per counter (ns), each side less its one-interval run; perf stat -a counts {os.cpu_count()} "
          f"CPUs per event; {load()}")
    # Per counter: the whole interval's CPU over its counters, and what each counter adds over the
    # previous size (the slope: the timer wakeup and the write every interval pays are left out).
    print(f"{'counters':>8} {'pmu-raw us':>11} {'ns/counter':>10} {'added ns':>9} {'perf stat us':>13} "
          f"{'ns/counter':>10} {'added ns':>9} {'perf/ours':>9} {'added':>6}")
    previous = None
    for counters, ours, theirs in rows:
        added = ""
        if previous:
            n0, ours0, theirs0 = previous
            ours_added, theirs_added = (ours - ours0) / (counters - n0), (theirs - theirs0) / (counters - n0)
            ratio = f"{theirs_added / ours_added:6.1f}" if ours_added > 0 else f"{'-':>6}"
            added = (f"{1e9 * ours_added:9.1f}", f"{1e9 * theirs_added:9.1f}", ratio)
        else:
            added = (f"{'':>9}", f"{'':>9}", f"{'':>6}")
        print(f"{counters:8d} {1e6 * ours:11.1f} {1e9 * ours / counters:10.1f} {added[0]} {1e6 * theirs:13.1f} "
              f"{1e9 * theirs / counters:10.1f} {added[1]} {theirs / ours:9.1f} {added[2]}")
        previous = (counters, ours, theirs)


def interleaved(lines, runs):
    """Each command's median CPU and wall seconds and CPU spread (min-max) over `runs` rounds, each
    round running every command once in turn (after one warm-up round), and the max RSS of one more."""
    for _, argv in lines:
        measured(argv, stdout=subprocess.DEVNULL)
    results = {name: [] for name, _ in lines}
    for _ in range(runs):
        for name, argv in lines:
            results[name].append(measured(argv, stdout=subprocess.DEVNULL))
    return [(name, (statistics.median(r[0] for r in results[name]), statistics.median(r[1] for r in results[name]),
                    max_rss(argv), min(r[0] for r in results[name]), max(r[0] for r in results[name])))
            for name, argv in lines]


def startup(work, runs):
    snap = os.path.join(work, "gnr-2s")
    subprocess.run([f"{tools}/pmu-sim", "create", "gnr-2s", snap], check=True, stdout=subprocess.DEVNULL)
    lines = [("/bin/true", ["/bin/true"])]
    for t in ("pmu-discover", "pmu-raw", "pmu-rcmap", "pmu-sim", "pmu-report", "pmu-exporter"):
        if os.path.exists(f"{tools}/{t}"):
            lines.append((f"{t} --version", [f"{tools}/{t}", "--version"]))
    lines += [("pmu-discover --dump (gnr-2s)", [f"{tools}/pmu-discover", "--snapshot", snap, "--dump"]),
              ("lspci -vvv (gnr-2s tree)", ["lspci", "-A", "linux-sysfs", "-O",
                                            f"sysfs.path={snap}/sys/bus/pci", "-vvv"])]
    sim = subprocess.Popen([f"{tools}/pmu-sim", "run", snap, "--realtime"], stdout=subprocess.DEVNULL)
    try:
        raw = [f"{tools}/pmu-raw", "--snapshot", snap, "--backend", "direct", "-x,", "-I", str(interval),
               "--interval-count", "1", "-o", "/dev/null"]
        for e in DIRECT_EVENTS:
            raw += ["-e", e]
        lines.append(("pmu-raw --interval-count 1 (gnr-2s)", raw))
        if shutil.which("perf"):
            perf_stat = ["perf", "stat", "-a", "-x,", "-I", str(interval), "--interval-count", "1", "-o", "/dev/null"]
            lines.append((f"perf stat -a -I {interval} --interval-count 1 (6 ev)", perf_stat + ["-e", ",".join(PERF_EVENTS)]))
            lines.append((f"perf stat -a -I {interval} --interval-count 1 msr/tsc/", perf_stat + ["-e", "msr/tsc/"]))
        if not shutil.which("/usr/bin/time"):
            sys.exit("interval_cpu: startup needs /usr/bin/time for max RSS (apt-get install time)")
        rows = interleaved(lines, runs)
    finally:
        sim.terminate()
        sim.wait()
    base = rows[0][1]
    print(f"{runs} interleaved rounds, medians (CPU range: min-max; max RSS: one more run); "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    print(f"{'command':<46} {'CPU ms':>7} {'range':>13} {'x true':>6} {'wall ms':>8} {'max RSS KiB':>11}")
    for name, (cpu, wall, rss, low, high) in rows:
        print(f"{name:<46} {1e3 * cpu:7.2f} {1e3 * low:6.2f}-{1e3 * high:6.2f} {cpu / base[0]:6.1f} {1e3 * wall:8.2f} "
              f"{rss:11d}")


def floor_plan(work, snap, events, one_csv):
    """interval_floor's plan for the lines pmu-raw wrote in its first interval: each box's counter
    k (the k-th -e event, as pmu-raw places four events on four counters), its control, and the
    event's selection (event | umask << 8: the SPR-style boxes' control)."""
    inv = json.loads(subprocess.run([f"{tools}/pmu-discover", "--snapshot", snap, "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    units = {u["name"]: u for u in inv["units"]}
    tails = [e.split("/", 1)[1] for e in events]
    path = os.path.join(work, "floor.plan")
    with open(one_csv) as f, open(path, "w") as out:
        lines = [line.rstrip("\n").split(",") for line in f if line.strip() and not line.startswith("#")]
        for fields in lines:
            if fields[0] != lines[0][0]:
                break
            box, event = fields[1], ",".join(fields[4:-4])
            k = tails.index(event.split("/", 1)[1])
            sel = re.search(r"event=(0x[0-9a-f]+),umask=(0x[0-9a-f]+)", event)
            u = units[box]["intel-uncore"]
            out.write(f"{u['ctr'][k]} {units[box]['width']} {box} {event} {u['ctl'][k]} "
                      f"{int(sel[1], 16) | int(sel[2], 16) << 8:x}\n")
    return path


def same_lines(ours, theirs):
    """Both CSVs hold the same lines but for the numbers (time, count, run time)."""
    def shape(path):
        with open(path) as f:
            return [tuple(x for i, x in enumerate(line.split(",")) if i not in (0, 2, len(line.split(",")) - 4))
                    for line in f if line.strip() and not line.startswith("#")]
    a, b = shape(ours), shape(theirs)
    if a != b:
        sys.exit(f"interval_cpu: pmu-raw and interval_floor wrote different lines ({len(a)} and {len(b)})")


def load():
    return f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs"


def spread(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return f"median {1e6 * statistics.median(values):7.1f} us (IQR {1e6 * q[0]:.1f}-{1e6 * q[2]:.1f}, " \
           f"range {1e6 * min(values):.1f}-{1e6 * max(values):.1f})"


def floor_size(work, n, intervals):
    """pmu-raw and interval_floor, interleaved, on n MMIO counters; returns per-interval CPU lists."""
    snap, sim, raw = served_mmio_machine(work, n, "floor")
    try:
        ours, theirs = os.path.join(work, "raw.csv"), os.path.join(work, "floor.csv")
        subprocess.run(raw + ["--interval-count", "1", "-o", ours], check=True, stderr=subprocess.DEVNULL)
        plan = floor_plan(work, snap, IMC_EVENTS, ours)
        floor = [os.path.join(build, "bench", "interval_floor"), f"{snap}/dev/mem", plan, str(interval)]
        sides = {"pmu-raw": lambda k, out: raw + ["--interval-count", str(k), "-o", out],
                 "floor": lambda k, out: floor + [str(k), out]}
        per = {name: [] for name in sides}
        for _ in range(repeats):
            for name, argv in sides.items():
                out = ours if name == "pmu-raw" else theirs
                one, _ = measured(argv(1, out))
                cpu, _ = measured(argv(intervals, out))
                if csv_lines(out) != intervals * n:
                    sys.exit(f"interval_cpu: {name} wrote {csv_lines(out)} lines, not {intervals} x {n}")
                per[name].append((cpu - one) / (intervals - 1))
            same_lines(ours, theirs)
        return per
    finally:
        sim.terminate()
        sim.wait()


def floor_mode(work, sizes):
    intervals = max(2, round(seconds * 1000 / interval))
    print(f"pmu-raw --per-box -x, -I {interval} --interval-count {intervals} against bench/interval_floor, "
          f"{repeats} interleaved rounds; per-interval CPU = (run - one-interval run) / {intervals - 1}")
    for n in sizes:
        per = floor_size(work, n, intervals)
        ratios = [a / b for a, b in zip(per["pmu-raw"], per["floor"])]
        print(f"{n:5d} counters  pmu-raw {spread(per['pmu-raw'])}")
        print(f"{'':15} floor   {spread(per['floor'])}")
        print(f"{'':15} ratio of medians {statistics.median(per['pmu-raw']) / statistics.median(per['floor']):.2f}"
              f" (per round {min(ratios):.2f}-{max(ratios):.2f})")
    print(f"machine: {load()} at the end")


with tempfile.TemporaryDirectory(prefix="pmukit-bench-") as work:
    if mode == "direct":
        direct(work, DIRECT_EVENTS, "MSR and MMIO")
        # MMIO alone: no system call per counter (MSR and config reads are one pread each).
        mmio = IMC_EVENTS + [f"uncore_b2cxl/event=0x{i + 1:02x},umask=0x00/" for i in range(8)]
        direct(work, mmio, "MMIO only")
    elif mode == "scaling":
        scaling(work)
    elif mode == "floor":
        floor_mode(work, [int(x) for x in sys.argv[6:]] or [1024, 4096])
    elif mode == "startup":
        startup(work, int(sys.argv[3]) if len(sys.argv) > 3 else 20)
    else:
        perf(work)
