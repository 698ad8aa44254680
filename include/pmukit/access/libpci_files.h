// pmukit -- the files libpci's sysfs method opens in a PCI device directory, for what pmukit asks
// of it ("vendor", "config", "resource", ...): what pmu-discover --capture copies of every function.
#pragma once

#include <span>

namespace pmukit {

std::span<const char* const> libpci_device_files();

}  // namespace pmukit
