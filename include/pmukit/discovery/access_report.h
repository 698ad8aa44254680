// pmukit -- why a machine shows no uncore PMU: one line per cause that holds for it.
//
// Every cause is read from the machine root, so a capture (pmu-discover --capture) replays the
// live answer: the CPU's hypervisor flag and identity (/proc/cpuinfo), /sys/hypervisor/type, the
// physical memory device (devmem.path), kernel lockdown (lockdown.path), the MSR device
// (msr.path), and whether the run was root (the process on the live machine; the capture manifest
// in a capture).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pmukit/discovery/discover.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

// The manifest pmu-discover --capture writes at the root of a capture (docs/snapshot-format.md).
inline constexpr std::string_view kCaptureManifest = "PMUKIT_CAPTURE.json";

// "GenuineIntel family 6 model 0xa7", "AuthenticAMD family 0x1a model 0x02": the CPU as the
// database is keyed; "" when /proc/cpuinfo names no x86 vendor, family and model.
std::string cpu_name(const CpuIdentity& cpu);

// The causes, in a fixed order: virtual machine, no /dev/mem, kernel lockdown, no MSR device, not
// root, CPU not in the database. Each is one line ("virtual machine: ...").
std::vector<std::string> no_access_causes(const Machine& machine, const DiscoveryResult& result);

}  // namespace pmukit::discovery
