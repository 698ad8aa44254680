#!/usr/bin/env python3
"""Times `pmu-discover --pci --json` and `pmu-discover --pci` (the text view) against `lspci -vvv`
reading the same synthetic snapshot.

Usage: bench/pci_vs_lspci.py [BUILD_DIR] [DEVICES] [RUNS]
  BUILD_DIR  the CMake build directory (default build/default)
  DEVICES    PCI devices in the synthetic machine (default 320)
  RUNS       timed runs of each command after one warm-up (default 15)

Both tools read the tree through libpci's sysfs method (lspci: -A linux-sysfs -O sysfs.path=...).
Prints the median wall and CPU time and the max RSS (/usr/bin/time) of each and their ratios;
when strace is installed, also the pread64 and openat calls each makes per device (config-space
reads are pread64 on sysfs `config`).
"""
import os
import subprocess
import sys
import tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
devices = int(sys.argv[2]) if len(sys.argv) > 2 else 320
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 15
here = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, here)
from pci_vs_lspci_common import max_rss, syscalls, timed  # noqa: E402

with tempfile.TemporaryDirectory(prefix="pmukit-bench-") as tmp:
    spec = os.path.join(tmp, "spec.json")
    with open(spec, "w") as f:
        subprocess.run([sys.executable, os.path.join(here, "big_machine.py"), str(devices)], stdout=f, check=True)
    root = os.path.join(tmp, "m")
    subprocess.run([f"{build}/tools/pmu-sim", "create", "--spec", spec, root], check=True, stdout=subprocess.DEVNULL)
    sysfs = os.path.join(root, "sys/bus/pci")
    ours_cmd = [f"{build}/tools/pmu-discover", "--pci", "--json", "--snapshot", root]
    text_cmd = [f"{build}/tools/pmu-discover", "--pci", "--snapshot", root]
    theirs_cmd = ["lspci", "-A", "linux-sysfs", "-O", f"sysfs.path={sysfs}", "-vvv"]
    ours, theirs, text = timed(ours_cmd, runs), timed(theirs_cmd, runs), timed(text_cmd, runs)
    ours_sys, theirs_sys = syscalls(ours_cmd), syscalls(theirs_cmd)
    ours_rss, theirs_rss, text_rss = max_rss(ours_cmd), max_rss(theirs_cmd), max_rss(text_cmd)

print(f"machine: {devices} synthetic PCI devices; {runs} runs each, medians")
print(f"pmu-discover --pci --json : wall {ours[0] * 1e3:7.1f} ms  cpu {ours[1] * 1e3:7.1f} ms  max RSS {ours_rss} KiB")
print(f"lspci -vvv                : wall {theirs[0] * 1e3:7.1f} ms  cpu {theirs[1] * 1e3:7.1f} ms  max RSS {theirs_rss} KiB")
print(f"pmu-discover --pci (text) : wall {text[0] * 1e3:7.1f} ms  cpu {text[1] * 1e3:7.1f} ms  max RSS {text_rss} KiB")
print(f"ratio pmu-discover/lspci  : wall {ours[0] / theirs[0]:.2f}  cpu {ours[1] / theirs[1]:.2f}  "
      f"max RSS {ours_rss / theirs_rss:.2f}")
print(f"ratio text view/lspci     : wall {text[0] / theirs[0]:.2f}  cpu {text[1] / theirs[1]:.2f}  "
      f"max RSS {text_rss / theirs_rss:.2f}")
if ours_sys and theirs_sys:
    print(f"pread64 per device        : pmu-discover {ours_sys[0] / devices:.1f}  lspci {theirs_sys[0] / devices:.1f}")
    print(f"openat per device         : pmu-discover {ours_sys[1] / devices:.1f}  lspci {theirs_sys[1] / devices:.1f}")
