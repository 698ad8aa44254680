// pmukit -- events labelled with the PCI device they count, bound to the PCIe PMU and filter that
// see that device, as pmu-rcmap maps it (Intel IIO stacks and parts, NVIDIA RC mappings).
#pragma once

#include <string>
#include <vector>

#include "pmukit/counting/series.h"
#include "pmukit/discovery/discover.h"

namespace pmukit {
class Machine;
}

namespace pmukit::counting {

// A PMU and the filter terms that select one device's traffic on it (pmu-rcmap's filter lines).
struct DeviceFilter {
  std::string pmu;    // uncore_iio_2, nvidia_pcie_pmu_0_rc_1
  std::string terms;  // "ch_mask=0x1,fc_mask=0x7", "src_bdf=0x0100,src_bdf_en=1", "bw_in_port0"
};

// The filters that count `device` ("DDDD:BB:DD.F") on this machine, as `found` (its discovery)
// and pmu-rcmap see it. Throws Error naming the device when it is not on the machine or no PCIe
// PMU counts it.
std::vector<DeviceFilter> device_filters(Machine& machine, const discovery::DiscoveryResult& found,
                                         const std::string& device);

// Every event of `events` that names a device is made to count that device, and only it:
//  - an event on a PMU type with none of the filter's terms ("uncore_iio/event=0x83,umask=0x04/")
//    is bound to the device's PMU and filter (uncore_iio_2/event=0x83,umask=0x04,ch_mask=0x1,fc_mask=0x7/);
//  - an event on a PMU instance must be on the device's PMU with its filter (ch_mask, src_bdf...: every
//    term of the filter but the transaction-type mask fc_mask, with the same value).
// Throws Error in one line naming the device, the PMU and filter that see it, and what the event has.
void bind_device_events(Machine& machine, const discovery::DiscoveryResult& found, std::vector<SeriesEvent>& events);

// The check alone: "" when `event` counts `device` through one of `filters`, the reason otherwise;
// `bound` gets the event bound to the first filter when it names only the PMU type.
std::string check_device_event(const std::string& event, const std::string& device,
                               const std::vector<DeviceFilter>& filters, std::string& bound);

}  // namespace pmukit::counting
