// pmukit -- Tegra410 PMU blocks outside CoreSight (NVLink-C2C, NV-CLink, NV-DLink, CMEM latency):
// ACPI devices NVDA2020-2023 whose _CRS lists one MEM resource per instance plus a broadcast one.
//
// What userspace can see on a real system: the ACPI device (hid, uid = socket, path, status) in
// /sys/bus/acpi/devices for anyone; the MEM resources only through /proc/iomem, under the platform
// device's name, and with real addresses only for root (others read 00000000-00000000). _CRS
// order and the _DSD peer masks are not exported at all; with the driver loaded, the PMU's sysfs
// "peer" file names the NVLink-C2C peer. Each unit says which of these it had.
#pragma once

#include <vector>

#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/inventory.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

unsigned discover_t410_blocks(Machine& machine, const std::vector<acpi::AcpiDevice>& acpi_devices,
                              Inventory& inventory);

}  // namespace pmukit::discovery
