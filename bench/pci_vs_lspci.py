#!/usr/bin/env python3
"""Times pmu-discover's PCI views against lspci reading the same synthetic snapshot, like with like:
the text view (`pmu-discover --pci`, every function with its decoded capabilities) against
`lspci -vvv`, and the JSON view (`pmu-discover --pci --json`, the functions, their BARs and
capability list) against `lspci -v`.

Usage: bench/pci_vs_lspci.py [BUILD_DIR] [DEVICES] [RUNS]
  BUILD_DIR  the CMake build directory (default build/default)
  DEVICES    PCI devices in the synthetic machine (default 320)
  RUNS       timed runs of each command after one warm-up (default 15, at least 5)

Both tools read the tree through libpci's sysfs method (lspci: -A linux-sysfs -O sysfs.path=...).
The four commands run interleaved (a round runs each once, in turn). Prints the median and
interquartile range of wall and CPU time, the output size and max RSS (/usr/bin/time) of each, the
ratios of the medians of each pair, and the machine's load; when strace is installed, also the
pread64 and openat calls each makes per device (config-space reads are pread64 on sysfs `config`).
"""
import os
import subprocess
import sys
import tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
devices = int(sys.argv[2]) if len(sys.argv) > 2 else 320
runs = max(5, int(sys.argv[3]) if len(sys.argv) > 3 else 15)
here = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, here)
from pci_vs_lspci_common import load, max_rss, syscalls, timed  # noqa: E402


def output_bytes(cmd):
    return len(subprocess.run(cmd, check=True, capture_output=True).stdout)


with tempfile.TemporaryDirectory(prefix="pmukit-bench-") as tmp:
    spec = os.path.join(tmp, "spec.json")
    with open(spec, "w") as f:
        subprocess.run([sys.executable, os.path.join(here, "big_machine.py"), str(devices)], stdout=f, check=True)
    root = os.path.join(tmp, "m")
    subprocess.run([f"{build}/tools/pmu-sim", "create", "--spec", spec, root], check=True, stdout=subprocess.DEVNULL)
    lspci = ["lspci", "-A", "linux-sysfs", "-O", f"sysfs.path={os.path.join(root, 'sys/bus/pci')}"]
    pairs = [("pmu-discover --pci", [f"{build}/tools/pmu-discover", "--pci", "--snapshot", root],
              "lspci -vvv", lspci + ["-vvv"]),
             ("pmu-discover --pci --json", [f"{build}/tools/pmu-discover", "--pci", "--json", "--snapshot", root],
              "lspci -v", lspci + ["-v"])]
    cmds = [c for ours, ours_cmd, theirs, theirs_cmd in pairs for c in (ours_cmd, theirs_cmd)]
    names = [n for ours, ours_cmd, theirs, theirs_cmd in pairs for n in (ours, theirs)]
    timings = timed(*cmds, runs=runs)
    sizes = [output_bytes(c) for c in cmds]
    rss = [max_rss(c) for c in cmds]
    calls = [syscalls(c) for c in cmds]

print(f"machine: {devices} synthetic PCI devices; {runs} interleaved runs each; {load()}")
for name, t, size, kib in zip(names, timings, sizes, rss):
    print(f"{name:26}: {t.describe()}  output {size} bytes  max RSS {kib} KiB")
for i in range(0, len(names), 2):
    ours, theirs = timings[i], timings[i + 1]
    print(f"{names[i]} / {names[i + 1]}: wall {ours.wall / theirs.wall:.2f}  cpu {ours.cpu / theirs.cpu:.2f}  "
          f"output {sizes[i] / sizes[i + 1]:.2f}  max RSS {rss[i] / rss[i + 1]:.2f} (medians)")
if all(calls):
    for name, (pread, openat) in zip(names, calls):
        print(f"{name:26}: pread64 {pread / devices:.1f}, openat {openat / devices:.1f} per device")
