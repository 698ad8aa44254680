#!/usr/bin/env python3
"""Writes a machine spec (docs/snapshot-format.md) with many PCI devices, for benchmarks.

Usage: big_machine.py N > spec.json   (N >= 1 devices; default 320)
The devices mix what real servers have: PMON discovery devices, DesignWare-style root ports
with long extended-capability chains, and endpoints with a handful of capabilities.
"""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 320
devices = []
for i in range(n):
    bus, dev = 1 + i // 32, i % 32
    bdf = f"0000:{bus:02x}:{dev:02x}.0"
    kind = i % 4
    if kind == 0:  # Intel PMON MSM: PCIe + PM, five DVSECs and a VSEC
        caps = [{"at": "0x90", "pcie": "rciep"}, {"at": "0xe0", "id": 1}] + \
               [{"at": hex(0x100 + 0x10 * k), "dvsec": {"vendor": "0x8086", "id": (k + 1) % 5, "rev": 1, "len": 16}}
                for k in range(5)] + [{"at": "0x160", "vsec": {"id": "0x41", "rev": 1, "len": 16}}]
        devices.append({"bdf": bdf, "id": "8086:09a7", "class": "0x110100", "numa_node": i % 2, "caps": caps})
    elif kind == 1:  # DesignWare root port: AER, SecPCIe, RAS DES VSEC, VSEC 1, DLF
        caps = [{"at": "0x40", "id": 1}, {"at": "0x50", "id": 5}, {"at": "0x70", "pcie": "root_port"},
                {"at": "0x100", "ext": 1, "version": 2}, {"at": "0x148", "ext": "0x19"},
                {"at": "0x248", "vsec": {"id": 2, "rev": 4, "len": "0x100"}},
                {"at": "0x348", "vsec": {"id": 1, "rev": 1, "len": "0x38"}}, {"at": "0x380", "ext": "0x25"}]
        devices.append({"bdf": bdf, "id": "1def:e101", "class": "0x060400", "header_type": 1,
                        "bus_numbers": [bus, 0, 0], "caps": caps})
    else:  # endpoint: PM, MSI-X, PCIe, AER, DSN
        caps = [{"at": "0x40", "id": 1}, {"at": "0x50", "id": "0x11"}, {"at": "0x70", "pcie": "endpoint"},
                {"at": "0x100", "ext": 1, "version": 2}, {"at": "0x140", "ext": 3}]
        devices.append({"bdf": bdf, "id": "144d:a80a", "class": "0x010802", "caps": caps,
                        "bars": [{"index": 0, "base": hex(0x80000000 + i * 0x10000), "size": "0x4000", "mem64": True}]})
json.dump({"name": f"big-{n}", "label": f"BENCHMARK MACHINE: {n} synthetic PCI devices",
           "topology": {"sockets": 2, "cpus_per_die": 1}, "pci_devices": devices}, sys.stdout, indent=1)
