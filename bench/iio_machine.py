#!/usr/bin/env python3
"""Writes a machine spec (docs/snapshot-format.md) of a 2-socket Sapphire Rapids with many PCIe
devices on its IIO stacks, for the IIO mapping benchmarks.

Usage: iio_machine.py [N] > spec.json   (N PCIe devices below root ports, default 400)
Per socket: an MSM, a PCU (XCC chop), a DMI stack, five PCIe stacks with root ports at devices 1-8,
and four accelerator stacks (DSA, IAX, QAT, HQM). Root ports and the multi-function endpoints below
them make up the N devices, split evenly over the sockets. Every number is invented.
"""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
per_socket = n // 2
ports_per_socket = 40                      # 5 PCIe stacks x root ports at devices 1-8
fns = max(1, per_socket // ports_per_socket - 1)  # endpoint functions below each root port
sockets = []
for s in range(2):
    base = 0x80 * s
    stacks = [{"entry": 0, "bus": hex(base)}]
    bus = base + 0x10
    made = 0
    for e in range(1, 6):
        root, ports = bus, []
        bus += 1
        for dev in range(1, 9):
            want = min(fns, per_socket - made - 1)
            if want < 0:
                break
            ports.append({"dev": dev, "id": "8086:352a", "buses": [hex(bus), hex(bus)],
                          "devices": [{"bdf": f"0000:{bus:02x}:00.{f}", "id": "15b3:101d", "class": "0x020000"}
                                      for f in range(want)]})
            made += 1 + want
            bus += 1
        stacks.append({"entry": e, "bus": hex(root), "root_ports": ports})
    for k, e in enumerate(range(8, 12)):
        root = base + 0x60 + 4 * k
        stacks.append({"entry": e, "bus": hex(root), "functions": [
            {"bdf": f"0000:{root:02x}:01.0", "id": "8086:0b25", "class": "0x088000", "type": "rciep"},
            {"bdf": f"0000:{root:02x}:02.0", "id": "8086:0cfe", "class": "0x088000", "type": "rciep"},
            {"bdf": f"0000:{root + 1:02x}:00.0", "id": "8086:4940", "class": "0x0b4000", "type": "rciep"},
            {"bdf": f"0000:{root + 3:02x}:00.0", "id": "8086:2710", "class": "0x0b4000", "type": "rciep"}]})
    sockets.append({"socket": s, "msm": f"0000:{base + 0x60:02x}:03.0", "pcu": f"0000:{base + 0x7e:02x}:1e.3",
                    "chop": 3, "stacks": stacks})
json.dump({"name": f"iio-{n}", "label": f"BENCHMARK MACHINE: 2-socket SPR, {n} PCIe devices below root ports",
           "cpuinfo": {"vendor": "GenuineIntel", "family": 6, "model": 143},
           "topology": {"sockets": 2, "cpus_per_die": 1},
           "intel_iio": {"style": "msm", "sockets": sockets}}, sys.stdout, indent=1)
