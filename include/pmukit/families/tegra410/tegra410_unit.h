// pmukit -- a Tegra410 PMU block outside CoreSight (ACPI NVDA2020..2023): the instances' and the
// broadcast region's MMIO resources.
#pragma once

#include "pmukit/discovery/inventory.h"
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pmukit::discovery {

struct T410Unit {
  // The two kinds of block: NVLink-C2C-like interfaces count events per instance; CMEM latency
  // counts requests and outstanding requests per memory controller.
  enum class Kind { C2c, CmemLatency };
  Kind kind = Kind::C2c;
  std::string hid;                            // NVDA2020..NVDA2023
  std::string interface;                      // "NVLink-C2C", "CMEM latency", ...
  std::string acpi_device;                    // "NVDA2020:00" (sysfs name)
  std::string uid;                            // _UID: the socket
  std::string acpi_path;                      // where it was found
  std::vector<std::uint64_t> instance_bases;  // MEM resources 0..N-1
  std::optional<std::uint64_t> broadcast_base;
  std::uint64_t region_size = 0;
  std::string peer;                                              // NVLink-C2C: "cpu", "gpu", "cxl memory"...
  bool exposed = false;                                          // resources readable by userspace
  unsigned ranges_listed = 0;                                    // /proc/iomem ranges under the device's name
  std::string resources_source;                                  // "/proc/iomem (NVDA2020:00)" or why there is none
  std::vector<std::pair<std::string, std::uint32_t>> registers;  // per-instance offsets

  static const Family& family();  // the family these details belong to
};

}  // namespace pmukit::discovery
