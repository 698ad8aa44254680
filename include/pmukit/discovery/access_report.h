// pmukit -- why a machine shows no uncore PMU: one line per cause that holds for it.
//
// Every cause but one is read from the machine root, so a snapshot of a machine answers as the
// machine did: the CPU's hypervisor flag and identity (/proc/cpuinfo), /sys/hypervisor/type, the
// physical memory device (devmem.path), kernel lockdown (lockdown.path), the MSR device
// (msr.path). Whether the run was root is the live process's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pmukit/discovery/discover.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// "GenuineIntel family 6 model 0xa7", "AuthenticAMD family 0x1a model 0x02": the CPU as the
// database is keyed; "" when /proc/cpuinfo names no x86 vendor, family and model.
std::string cpu_name(const CpuIdentity& cpu);

// The causes, in a fixed order: virtual machine, no /dev/mem, kernel lockdown, no MSR device, not
// root, CPU not in the database. Each is one line ("virtual machine: ...").
std::vector<std::string> no_access_causes(const Machine& machine, const DiscoveryResult& result);

}  // namespace pmukit::discovery
