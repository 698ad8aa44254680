// pmukit -- what proves that a physical address range belongs to a PMU, before
// discovery maps it. One source (a firmware table, a device ID) is a claim; mapping needs a second,
// independent one where the platform offers it -- the range the kernel itself recorded for that
// device. Each family's rule is in docs/architecture.md ("What proves a region").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/acpi/devices.h"

namespace pmukit {
class Machine;
struct BarRegion;
}  // namespace pmukit

namespace pmukit::discovery {

// Why [base, base + size) may not be mapped as registers of the platform device whose resources
// the kernel names with one of `names` in /proc/iomem; nullopt when it is proven: one range with
// one of those names covers it, and it overlaps no PCI BAR (a function's `resource` file, or a
// /proc/iomem range named by a PCI address) and no System RAM.
std::optional<std::string> platform_region_refusal(Machine& machine, const acpi::Iomem& iomem,
                                                   const std::vector<std::string>& names, std::uint64_t base,
                                                   std::uint64_t size);

// Why [base, base + size) must not be read as registers at all: it overlaps System RAM, or a PCI
// BAR of a function not in `allowed`; nullopt when nothing the kernel knows contradicts it.
std::optional<std::string> contradicted_region(Machine& machine, const acpi::Iomem& iomem, std::uint64_t base,
                                               std::uint64_t size, const std::vector<Bdf>& allowed);

// The BAR the kernel lists for BAR `bir` of `bdf` (its sysfs `resource` file), when it is a memory
// BAR that starts at `address` -- the address read from the BAR register in config space.
const BarRegion* kernel_bar(Machine& machine, const Bdf& bdf, int bir, std::uint64_t address);

}  // namespace pmukit::discovery
