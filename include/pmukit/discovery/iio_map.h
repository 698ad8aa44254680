// pmukit -- Intel PCIe devices -> IIO stack -> IIO PMU, part and filter terms.
//
// Each IIO stack owns a PCI root bus; firmware publishes which bus each stack has (SKX: the UBOX
// CPUBUSNO registers; ICX/SNR: SAD_CONTROL_CFG of a device on every stack; SPR/EMR/GNR/SRF: the
// MSM CPUBUSNO registers), and a per-model table turns the stack's entry into its IIO PMU. Every
// device is then attributed through the function it hangs from on a stack's buses (its root port,
// or itself for an integrated accelerator) to a "part", the bit of the stack's ch_mask filter.
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
#include "pmukit/pci/device.h"
#include "pmukit/platform/iio_map.h"

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

// A filter that counts a device: a PMU, the terms that select it, and a runnable example.
struct IioFilter {
  std::string pmu;      // uncore_iio_2, uncore_iio_free_running_2
  std::string terms;    // "ch_mask=0x1,fc_mask=0x7", or the free-running event "bw_in_port0"
  std::string scope;    // what the filter selects
  std::string example;  // uncore_iio_2/event=0x83,umask=0x01,ch_mask=0x1,fc_mask=0x7/
};

struct IioDeviceMap {
  Bdf device;
  std::string kind;                    // "Endpoint", "Root Port", "PCI bridge"...
  std::optional<Bdf> root_port;        // from the PCI topology
  std::optional<Bdf> anchor;           // the function on the stack's buses it is attributed through
  const IioStack* stack = nullptr;     // the stack whose PMU counts it (the parent of a part_of bus)
  const IioStack* on_stack = nullptr;  // the stack whose bus range holds the anchor
  std::vector<unsigned> parts;         // ch_mask bits; empty when no part selects it
  std::string part_what;               // "root port", "DSA"
  std::string pmu;                     // uncore_iio_<n>
  std::string free_running;            // uncore_iio_free_running_<n>, "" when the model has none
  const PmuUnit* unit = nullptr;       // the discovered IIO unit (SPR and later), null otherwise
  std::string unit_table;              // the discovery table it was found in
  // What an IIO event needs to count this device (part B): ch_mask and fc_mask values, their
  // formats, and the bits they set in config, encoded by the kernel's format rules.
  std::uint64_t ch_mask = 0;
  std::uint64_t fc_mask = 0;
  std::string ch_mask_format;  // "config:36-47"
  std::string fc_mask_format;  // "config:48-50"
  std::uint64_t filter_config = 0;
  std::vector<IioFilter> filters;
  std::string error;  // why there is no PMU or part (empty when mapped)
};

// How every one of `devices` (sorted by address, as pci::scan gives them) is seen by the IIO PMUs,
// in their order: each device's anchor, stack and unit looked up in indexes built once, so N
// devices cost O(N log N). `inventory` (may be null) supplies discovered IIO units.
std::vector<IioDeviceMap> map_iio_devices(const std::vector<pci::Device>& devices, const IioTopology& topology,
                                          const Inventory* inventory);
// The same for one device (the indexes built for it alone).
IioDeviceMap map_iio_device(const pci::Device& device, const std::vector<pci::Device>& devices,
                            const IioTopology& topology, const Inventory* inventory);

}  // namespace pmukit::discovery
