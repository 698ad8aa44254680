// pmukit -- Intel PCIe devices -> IIO stack -> IIO PMU, part and filter terms: every device is
// attributed through the function it hangs from on a stack's buses (its root port, or itself for
// an integrated accelerator) to a "part", the bit of the stack's ch_mask filter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/families/intel/iio_stacks.h"
#include "pmukit/pci/device.h"

namespace pmukit::discovery {

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
