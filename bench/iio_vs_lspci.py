#!/usr/bin/env python3
"""Times `pmu-rcmap --tree` (the PCI tree with every device's IIO stack, PMU and part) against
`lspci -t -vv` (the tree and names alone) reading the same synthetic 2-socket Sapphire Rapids.

Usage: bench/iio_vs_lspci.py [BUILD_DIR] [DEVICES] [RUNS]
  BUILD_DIR  the CMake build directory (default build/default)
  DEVICES    PCIe devices below root ports (default 400; bench/iio_machine.py)
  RUNS       timed runs of each command after one warm-up (default 15)

Both read the tree through libpci's sysfs method (lspci: -A linux-sysfs -O sysfs.path=...).
Prints the median wall and CPU time of each, their ratio, and with strace the pread64 (config
reads) and openat calls each makes. pmu-rcmap also runs PMU discovery, as it does on any machine.
"""
import os
import sys
import subprocess
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, here)
from pci_vs_lspci_common import load, syscalls, timed  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
devices = int(sys.argv[2]) if len(sys.argv) > 2 else 400
runs = max(5, int(sys.argv[3]) if len(sys.argv) > 3 else 15)

with tempfile.TemporaryDirectory(prefix="pmukit-bench-") as tmp:
    spec = os.path.join(tmp, "spec.json")
    with open(spec, "w") as f:
        subprocess.run([sys.executable, os.path.join(here, "iio_machine.py"), str(devices)], stdout=f, check=True)
    root = os.path.join(tmp, "m")
    subprocess.run([f"{build}/tools/pmu-sim", "create", "--spec", spec, root], check=True, stdout=subprocess.DEVNULL)
    sysfs = os.path.join(root, "sys/bus/pci")
    tree_cmd = [f"{build}/tools/pmu-rcmap", "--snapshot", root, "--tree"]
    json_cmd = [f"{build}/tools/pmu-rcmap", "--snapshot", root, "--json"]
    lspci_cmd = ["lspci", "-A", "linux-sysfs", "-O", f"sysfs.path={sysfs}", "-t", "-vv"]
    tree, js, lspci = timed(tree_cmd, json_cmd, lspci_cmd, runs=runs)
    tree_sys, lspci_sys = syscalls(tree_cmd), syscalls(lspci_cmd)
    functions = len(os.listdir(os.path.join(sysfs, "devices")))

print(f"machine: 2-socket SPR, {devices} PCIe devices below root ports, {functions} PCI functions; "
      f"{runs} interleaved runs each, median (IQR); {load()}")
print(f"pmu-rcmap --tree   : {tree.describe()}")
print(f"pmu-rcmap --json   : {js.describe()}")
print(f"lspci -t -vv       : {lspci.describe()}")
print(f"ratio --tree/lspci : wall {tree.wall / lspci.wall:.2f}  cpu {tree.cpu / lspci.cpu:.2f} (medians)")
if tree_sys and lspci_sys:
    print(f"pread64 (config reads): pmu-rcmap --tree {tree_sys[0]}  lspci -t -vv {lspci_sys[0]}")
    print(f"openat                : pmu-rcmap --tree {tree_sys[1]}  lspci -t -vv {lspci_sys[1]}")
