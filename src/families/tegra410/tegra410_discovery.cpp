// pmukit -- Tegra410 C2C / CMEM latency blocks from sysfs ACPI devices and /proc/iomem
// (Linux nvidia_t410_c2c_pmu.c, nvidia_t410_cmem_latency_pmu.c).
#include "pmukit/families/tegra410/tegra410_discovery.h"

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/kernel_pmus.h"
#include "pmukit/discovery/region_proof.h"
#include "pmukit/discovery/unit_helpers.h"
#include "pmukit/families/tegra410/tegra410_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/file.h"

namespace pmukit::discovery {

namespace {

// What the ACPI device and its platform data say, before its resources are looked for.
PmuUnit unit_of(const acpi::AcpiDevice& dev, const platform::T410Block& block, T410Unit& u) {
  u.hid = dev.hid.value_or("");  // block_of matched it: present
  u.interface = block.interface;
  u.acpi_device = dev.name;
  u.uid = dev.uid.value_or("");
  u.acpi_path = dev.path;
  u.peer = block.peer;
  u.registers = block.registers;
  u.kind = block.family == "t410-c2c" ? T410Unit::Kind::C2c : T410Unit::Kind::CmemLatency;
  PmuUnit pu;
  pu.type_name = block.interface;
  pu.pmu_kind = block.pmu_kind;
  pu.num_counters = block.counters;
  pu.counter_width = block.width;
  pu.filters = filters_of(platform::Database::builtin().pmu_kind(block.pmu_kind));
  // The driver names the PMU after _UID, which it treats as the socket.
  auto uid = dev.uid_number();
  if (uid)
    pu.socket = static_cast<int>(*uid);
  else
    pu.notes.push_back("the ACPI device has no _UID: socket unknown");
  pu.name = platform::expand_pattern(block.name_pattern, {{"socket", uid ? std::to_string(*uid) : "?"}});
  return pu;
}

// Why the block's ranges are not register blocks pmukit maps: one does not start on a qword (the
// registers are 32- and 64-bit words), or the kernel gives it to something else (region_proof.h).
std::optional<std::string> unusable_range(Machine& machine, const acpi::Iomem& iomem,
                                          const std::vector<acpi::IomemRange>& ranges) {
  for (const auto& r : ranges) {
    if (r.start % 8 || r.end < r.start)
      return fmt::format("range {:#x}-{:#x} is not a register block (not 8-byte aligned): not used", r.start, r.end);
    if (auto why = contradicted_region(machine, iomem, r.start, r.end - r.start + 1, {}))
      return fmt::format("range {:#x}-{:#x} not proven, not used: {}", r.start, r.end, *why);
  }
  return std::nullopt;
}

// The block's instance bases and broadcast region from the ranges the platform device holds.
void take_ranges(Machine& machine, const acpi::Iomem& iomem, const acpi::AcpiDevice& dev,
                 const platform::T410Block& block, const std::vector<acpi::IomemRange>& ranges, T410Unit& u,
                 PmuUnit& pu, Inventory& inv) {
  const std::string iomem_file = machine.param("iomem.path").string();
  u.exposed = true;
  // _CRS order is not visible: /proc/iomem sorts by address. The driver takes resources
  // 0..N-1 as instances and N as broadcast; pmukit assumes firmware lists them ascending.
  // The broadcast region is the last resource whatever the count (resource N of N + 1).
  std::size_t n = ranges.size() > 1 ? ranges.size() - 1 : ranges.size();
  for (std::size_t i = 0; i < n; ++i) u.instance_bases.push_back(ranges[i].start);
  if (ranges.size() > 1) u.broadcast_base = ranges.back().start;
  u.region_size = *ranges.front().bytes();
  pu.notes.push_back("instance order is /proc/iomem's address order; _CRS order (which makes "
                     "the last one the "
                     "broadcast region) is not exported and is assumed to be ascending");
  if (auto why = unusable_range(machine, iomem, ranges)) {
    inv.warnings.push_back(fmt::format("ACPI device {} ({}): {} {}", dev.name, block.interface, iomem_file, *why));
    u.exposed = false;
    u.instance_bases.clear();
    u.broadcast_base.reset();
  }
  if (ranges.size() != block.instances + 1u)
    inv.warnings.push_back(fmt::format("ACPI device {} ({}): {} memory ranges in {}, expected {} instances + 1 "
                                       "broadcast",
                                       dev.name, block.interface, ranges.size(), iomem_file, block.instances));
}

// The instance and broadcast regions: the platform device's ranges in /proc/iomem, which carry the
// device's name (the ACPI core created it), when userspace can see them.
void find_regions(Machine& machine, const acpi::Iomem& iomem, const acpi::AcpiDevice& dev,
                  const platform::T410Block& block, T410Unit& u, PmuUnit& pu, Inventory& inv) {
  const std::string iomem_file = machine.param("iomem.path").string();
  std::string platform_name = dev.physical_node.value_or(dev.name);
  if (platform_name != dev.name) {
    // The ACPI core names the platform device after the ACPI device; bound to anything else (a PCI
    // function), the ranges under that name are not the block's.
    pu.notes.push_back(fmt::format("ACPI device {} is bound to {}, not to its own platform device: its MMIO "
                                   "resources are not used",
                                   dev.name, platform_name));
    return;
  }
  if (!iomem.readable) {
    u.resources_source = fmt::format("{} unreadable", iomem_file);
    pu.notes.push_back(
        fmt::format("MMIO resources unknown: {} cannot be read, and _CRS is not exported elsewhere", iomem_file));
    return;
  }
  auto ranges = iomem.named(platform_name);
  u.ranges_listed = static_cast<unsigned>(ranges.size());
  u.resources_source = fmt::format("{} ({})", iomem_file, platform_name);
  if (ranges.empty()) {
    pu.notes.push_back(fmt::format("no memory ranges named {} in {}: the platform device was not created or its _CRS "
                                   "has no MEM resources; _CRS is not exported elsewhere",
                                   platform_name, iomem_file));
    return;
  }
  if (iomem.addresses_hidden) {
    pu.notes.push_back(
        fmt::format("{} lists {} ranges for {} but shows addresses only to root (reads 0-0): run as root "
                    "to see the instance bases",
                    iomem_file, ranges.size(), platform_name));
    return;
  }
  if (!ranges.front().bytes()) {
    inv.warnings.push_back(fmt::format("ACPI device {} ({}): {} names {:#x}-{:#x}: the whole address space, not a "
                                       "register block: not used",
                                       dev.name, block.interface, iomem_file, ranges.front().start,
                                       ranges.front().end));
    return;
  }
  take_ranges(machine, iomem, dev, block, ranges, u, pu, inv);
}

const platform::T410Block* block_of(const std::vector<platform::T410Block>& blocks, const acpi::AcpiDevice& dev) {
  const platform::T410Block* block = nullptr;
  for (const auto& b : blocks)
    if (dev.has_hid(b.hid)) block = &b;
  return block;
}

}  // namespace

unsigned discover_t410_blocks(Machine& machine, const std::vector<acpi::AcpiDevice>& acpi_devices, Inventory& inv) {
  if (acpi_devices.empty()) return 0;  // before asking for the SoC data, which is parsed on first use
  const auto& blocks = platform::Database::builtin().soc(platform::SocSection::T410Blocks).t410_blocks;
  if (blocks.empty()) return 0;
  std::optional<acpi::Iomem> iomem;
  std::optional<KernelPmus> kernel;
  unsigned found = 0;
  for (const auto& dev : acpi_devices) {
    const platform::T410Block* block = block_of(blocks, dev);
    if (!block) continue;
    if (!dev.present()) {
      inv.warnings.push_back(fmt::format("ACPI device {} ({}): _STA {:#x} says not present: skipped", dev.name,
                                         block->interface, dev.status.value_or(0)));
      continue;
    }
    if (!iomem) iomem = acpi::read_iomem(machine);
    if (!kernel) kernel = read_kernel_pmus(machine);
    T410Unit u;
    PmuUnit pu = unit_of(dev, *block, u);
    find_regions(machine, *iomem, dev, *block, u, pu, inv);
    if (kernel->has(pu.name)) {
      if (auto peer = machine.files().read_line(machine.param("events.path") / pu.name / "peer")) u.peer = *peer;
    } else if (u.kind == T410Unit::Kind::C2c && u.peer.empty()) {
      pu.notes.push_back("peer (CPU or GPU) comes from _DSD cpu_en_mask/gpu*_en_mask, not exported; the driver's "
                         "'peer' sysfs file shows it once loaded");
    }
    pu.set_detail(std::move(u));
    inv.units.push_back(std::move(pu));
    ++found;
  }
  return found;
}

}  // namespace pmukit::discovery
