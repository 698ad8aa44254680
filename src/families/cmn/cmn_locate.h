// pmukit -- internal: where firmware says each Arm CMN configuration region is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "pmukit/acpi/devices.h"
#include "pmukit/families/cmn/cmn_data.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

struct CmnLocation {
  std::string firmware;              // "ACPI ARMHC700:00 \\_SB_.CMN0", "devicetree /cmn@50000000"
  std::string device;                // the platform device Linux makes: ARMHC700:00, 50000000.cmn
  std::filesystem::path device_dir;  // its sysfs directory ("" when not found)
  std::uint16_t part = 0;            // what the firmware ID promises
  bool usable = false;               // base and size are known
  std::uint64_t base = 0, size = 0, root_offset = 0;
  std::vector<std::string> notes;  // why it is not usable, or what was assumed
};

// ACPI ARMHC600/650/700 devices (platforms/arm/cmn.json; a device without a _HID matches none),
// their ranges from /proc/iomem under the platform device's name: one for CMN-650/700 (root node
// at offset 0); two for CMN-600, the configuration region and, inside it, the root node (arm-cmn.c
// arm_cmn600_acpi_probe()). A location is usable only when its region is proven
// (region_proof.h): the device is bound to its own platform device, /proc/iomem names the range
// after it, and no PCI BAR or System RAM overlaps it.
std::vector<CmnLocation> locate_cmn_acpi(Machine& machine, const std::vector<acpi::AcpiDevice>& devices,
                                         const platform::CmnData& data, std::vector<std::string>& warnings);

// Devicetree nodes compatible with arm,cmn-600/650/700 or arm,ci-700 below devicetree.path: the
// first reg entry (cells per the parent's #address-cells/#size-cells), and for CMN-600 the
// arm,root-node property (arm_cmn600_of_probe()); usable when /proc/iomem names the range after the
// node (or its reg-names entry, or the platform device) and nothing contradicts it.
std::vector<CmnLocation> locate_cmn_dt(Machine& machine, const platform::CmnData& data,
                                       std::vector<std::string>& warnings);

// The perf PMU the running kernel registered under the platform device (arm_cmn_<n>), or "".
std::string kernel_cmn_pmu(const Machine& machine, const std::filesystem::path& device_dir);

}  // namespace pmukit::discovery
