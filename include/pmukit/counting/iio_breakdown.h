// pmukit -- IIO metrics per PCIe device (--per-device) and per IIO stack (--per-stack): each
// -M metric bound to the stack PMU (uncore_iio_<n>) that sees a device's traffic, with the ch_mask
// of the device's part (or of every part of the stack), as pcm-iio breaks IIO traffic down.
#pragma once

#include <string>
#include <vector>

#include "pmukit/counting/metric_runner.h"
#include "pmukit/discovery/discover.h"

namespace pmukit {
class Machine;
}

namespace pmukit::counting {

enum class IioScope { None, Device, Stack };

// Expands each -M argument (NAME or NAME/TERMS/) on this machine's IIO stacks: one instance per PCIe
// device behind a root port or integrated as a part (Device) -- a device no part selects is an
// instance with the reason and no events -- or one per IIO PMU (Stack), and appends their events
// to `specs`; `pmus` are the PMU names that can be counted here (pmu_names). Warnings of the stack mapping go to
// `warnings`. Throws UsageError for a machine without an IIO mapping, a metric that is not an IIO metric, or a
// stack-wide metric (no ch_mask term) asked per device.
std::vector<MetricInstance> add_iio_metric_events(Machine& machine, const discovery::DiscoveryResult& found,
                                                  const metrics::Catalog& catalog, const std::vector<std::string>& args,
                                                  const std::vector<std::string>& pmus, IioScope scope,
                                                  std::vector<syntax::EventSpec>& specs,
                                                  std::vector<std::string>& warnings);

// The platform-neutral names among the metric arguments (pcie_to_device, pcie_from_device) whose
// metrics here are per-part IIO metrics (iio_inbound_read_bw...): each bound to every IIO stack
// with the ch_mask of all its parts, as --per-stack binds them (a stack that cannot be counted is
// left out), their events appended to `specs`. Those arguments are taken out of `args`; the rest
// (and a name no IIO stack here counts) are left for add_metric_events. Nothing on a machine without
// an IIO stack mapping.
std::vector<MetricInstance> add_neutral_iio_metrics(Machine& machine, const discovery::DiscoveryResult& found,
                                                    const metrics::Catalog& catalog, std::vector<std::string>& args,
                                                    const std::vector<std::string>& pmus,
                                                    std::vector<syntax::EventSpec>& specs,
                                                    std::vector<std::string>& warnings);

}  // namespace pmukit::counting
