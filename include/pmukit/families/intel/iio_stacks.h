// pmukit -- Intel IIO stacks: which PCI root bus each stack owns, and its IIO PMU.
//
// Each IIO stack owns a PCI root bus; firmware publishes which bus each stack has (SKX: the UBOX
// CPUBUSNO registers; ICX/SNR: SAD_CONTROL_CFG of a device on every stack; SPR/EMR/GNR/SRF: the
// MSM CPUBUSNO registers), and a per-model table turns the stack's entry into its IIO PMU. Every
// device is then attributed through the function it hangs from on a stack's buses (its root port,
// or itself for an integrated accelerator) to a "part", the bit of the stack's ch_mask filter
// (iio_devices.h).
// Where Linux exposes the same mapping (uncore_iio_<n>/die<x>: SKX, ICX, SNR) it is used when
// config space cannot be read and cross-checked when it can. The scheme -- registers, tables,
// layouts -- is data (platform::IioMapScheme); this code reads what the data names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/discovery/system.h"
#include "pmukit/families/intel/iio_scheme.h"
#include "pmukit/pci/device.h"

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

struct IioStack {
  int socket = -1;  // physical package id
  int die = -1;     // the kernel's logical die: the X of uncore_iio_<n>/die<X>
  std::uint32_t domain = 0;
  std::uint8_t root_bus = 0;
  unsigned entry = 0;                                    // CPUBUSNO index, or SAD_CONTROL_CFG stack id
  const platform::IioStackEntry* table_entry = nullptr;  // null: an entry the table does not list
  std::optional<std::size_t> parent;                     // index of the stack a part_of bus belongs to
  std::optional<unsigned> pmu;                           // IIO PMU number (uncore_iio_<pmu>)
  std::string pmu_name;                                  // "uncore_iio_2"; "" without a PMU of its own
  std::string free_running;                              // "uncore_iio_free_running_2"; "" when none
  std::string name;                                      // "PCIe0"
  std::string source;                                    // the register it was read from
  std::string kernel;                                    // "uncore_iio_2/die0 = 0000:15" when Linux has it
};

struct IioTopology {
  const platform::IioMapScheme* scheme = nullptr;
  const platform::IioTable* table = nullptr;
  std::string table_source;  // how the table was chosen: "chop 0b11 from PCU 0000:7e:1e.3 CAPID4 @0x94"
  std::string route;         // "config space" or "Linux uncore_iio_<n>/die<x> files"
  std::vector<IioStack> stacks;
  std::vector<std::string> warnings;
  std::uint64_t config_reads = 0;  // config-space reads this mapping made (each register once)
};

// The name of IIO PMU number `pmu` in this scheme ("uncore_iio_2"): what a stack's pmu_name holds.
std::string iio_pmu_name(const platform::IioMapScheme& scheme, unsigned pmu);

// The IIO mapping scheme of this machine's CPU model (cpus.json iio_map), null when it has none.
const platform::IioMapScheme* iio_scheme_for(const std::optional<CpuIdentity>& cpu);

// Reads every stack's root bus, socket and PMU. Problems (an unreadable register, an entry the
// table does not list, a kernel file that disagrees) are warnings naming the device and register.
IioTopology read_iio_topology(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                              const platform::IioMapScheme& scheme);

}  // namespace pmukit::discovery
