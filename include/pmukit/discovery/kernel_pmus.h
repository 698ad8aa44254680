// pmukit -- the PMUs the running kernel registered (events.path, /sys/bus/event_source/devices).
//
// Each entry links to the PMU's device; drivers that set pmu.parent (arm_cspmu since Linux 6.8)
// put it under their platform device, so the link's parent directory names the device:
// .../platform/arm-cs-arch-pmu.12/nvidia_pcie_pmu_0_rc_1. That is how pmukit learns values the
// kernel read from firmware but does not export (the RC# from _DSD "instance_id").
#pragma once

#include <map>
#include <string>

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

struct KernelPmus {
  bool present = false;                          // events.path exists
  std::map<std::string, std::string> parent;     // PMU name -> parent device name ("" if none)
  std::map<std::string, std::string> by_parent;  // parent device name -> PMU name
  bool has(const std::string& name) const { return parent.count(name) != 0; }
};

KernelPmus read_kernel_pmus(const Machine& machine);

}  // namespace pmukit::discovery
