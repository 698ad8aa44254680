// pmukit -- what proves a physical range belongs to a PMU (region_proof.h).
#include "pmukit/discovery/region_proof.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/physical_memory.h"

namespace pmukit::discovery {

namespace {

bool overlaps(std::uint64_t a_start, std::uint64_t a_end, std::uint64_t b_start, std::uint64_t b_end) {
  return a_start <= b_end && b_start <= a_end;
}

// The last byte of [base, base + size), or nullopt when the range is empty or wraps.
std::optional<std::uint64_t> last_byte(std::uint64_t base, std::uint64_t size) {
  if (size == 0 || base > UINT64_MAX - (size - 1)) return std::nullopt;
  return base + (size - 1);
}

std::string iomem_file(const Machine& machine) {
  return machine.param("iomem.path").string();
}

}  // namespace

std::optional<std::string> contradicted_region(Machine& machine, const acpi::Iomem& iomem, std::uint64_t base,
                                               std::uint64_t size, const std::vector<Bdf>& allowed) {
  auto end = last_byte(base, size);
  if (!end) return fmt::format("{:#x}+{:#x} is not a range of the physical address space", base, size);
  for (const auto& bar : machine.memory().bars())
    if (overlaps(base, *end, bar.start, bar.end) && std::find(allowed.begin(), allowed.end(), bar.bdf) == allowed.end())
      return fmt::format("it overlaps BAR{} of PCI function {} ({:#x}-{:#x}): a PCI function's registers, not this "
                         "unit's",
                         bar.index, bar.bdf.str(), bar.start, bar.end);
  if (!iomem.readable || iomem.addresses_hidden) return std::nullopt;
  for (const auto& r : iomem.ranges) {
    if (!overlaps(base, *end, r.start, r.end)) continue;
    if (r.name == "System RAM")
      return fmt::format("{} lists {:#x}-{:#x} as System RAM", iomem_file(machine), r.start, r.end);
    auto bdf = Bdf::parse(r.name);
    if (bdf && std::find(allowed.begin(), allowed.end(), *bdf) == allowed.end())
      return fmt::format("{} gives {:#x}-{:#x} to PCI function {}: a PCI function's registers, not this unit's",
                         iomem_file(machine), r.start, r.end, r.name);
  }
  return std::nullopt;
}

std::optional<std::string> platform_region_refusal(Machine& machine, const acpi::Iomem& iomem,
                                                   const std::vector<std::string>& names, std::uint64_t base,
                                                   std::uint64_t size) {
  const std::string file = iomem_file(machine);
  const std::string name = names.empty() ? std::string("(no name)") : names.front();
  if (!iomem.readable) return fmt::format("{} cannot be read, so the kernel's record of {} is unknown", file, name);
  if (iomem.addresses_hidden)
    return fmt::format("{} shows addresses only to root (reads 0-0): run as root to prove {}'s range", file, name);
  auto end = last_byte(base, size);
  if (!end) return fmt::format("{:#x}+{:#x} is not a range of the physical address space", base, size);
  bool named = std::any_of(iomem.ranges.begin(), iomem.ranges.end(), [&](const acpi::IomemRange& r) {
    return r.start <= base && *end <= r.end && std::find(names.begin(), names.end(), r.name) != names.end();
  });
  if (!named)
    return fmt::format("no range in {} named {} covers {:#x}-{:#x}: the kernel does not give it to that device", file,
                       name, base, *end);
  return contradicted_region(machine, iomem, base, size, {});
}

const BarRegion* kernel_bar(Machine& machine, const Bdf& bdf, int bir, std::uint64_t address) {
  for (const auto& bar : machine.memory().bars())
    if (bar.bdf == bdf && bar.index == bir && bar.start == address) return &bar;
  return nullptr;
}

}  // namespace pmukit::discovery
