// pmukit -- libpci's functions, from libpci.so.3 opened on first use instead of linked.
//
// Linked, libpci.so.3 and what it needs (libudev, libz) were loaded and relocated at every tool's
// start, a third of `pmu-raw --version`'s CPU time (bench/interval_cpu.py startup), whether or not
// the run reads a PCI device (--version, --help, pmu-report, the perf backend). Only PciAccess and
// PciFilter call libpci; they take the functions from here.
#pragma once

extern "C" {
#include <pci/pci.h>
}

namespace pmukit {

struct LibPci {
  decltype(&::pci_alloc) alloc;
  decltype(&::pci_init) init;
  decltype(&::pci_cleanup) cleanup;
  decltype(&::pci_scan_bus) scan_bus;
  decltype(&::pci_fill_info) fill_info;
  decltype(&::pci_read_block) read_block;
  decltype(&::pci_write_block) write_block;
  decltype(&::pci_set_param) set_param;
  decltype(&::pci_lookup_name) lookup_name;
  decltype(&::pci_filter_init) filter_init;
  decltype(&::pci_filter_parse_slot) filter_parse_slot;
  decltype(&::pci_filter_parse_id) filter_parse_id;
  decltype(&::pci_filter_match) filter_match;
};

// Opens libpci.so.3 the first time (thread-safe; it stays open); throws Error("libpci.so.3: ...")
// when the library or one of the functions is missing.
const LibPci& libpci();

}  // namespace pmukit
