// pmukit -- Arm CMN configuration regions from ACPI devices and /proc/iomem, or the devicetree.
#include "cmn_locate.h"

#include <dirent.h>

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/region_proof.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"

namespace pmukit::discovery {

namespace fs = std::filesystem;

namespace {

// Distinct ranges /proc/iomem lists under `name`, nested claims included (a driver's claim of the
// same range counts once).
std::vector<acpi::IomemRange> ranges_named(const acpi::Iomem& iomem, const std::string& name) {
  std::vector<acpi::IomemRange> out;
  for (const auto& r : iomem.ranges) {
    if (r.name != name) continue;
    bool dup = std::any_of(out.begin(), out.end(), [&](const auto& o) { return o.start == r.start && o.end == r.end; });
    if (!dup) out.push_back(r);
  }
  return out;
}

// Marks `loc` usable when its region is proven to be the platform device's (region_proof.h).
void prove(Machine& machine, const acpi::Iomem& iomem, const std::vector<std::string>& names, CmnLocation& loc) {
  if (auto why = platform_region_refusal(machine, iomem, names, loc.base, loc.size)) {
    loc.notes.push_back(
        fmt::format("configuration region {:#x}+{:#x} not proven, not mapped: {}", loc.base, loc.size, *why));
    return;
  }
  loc.usable = true;
}

// CMN-600: the configuration region and the root node inside it, in either _CRS order
// (arm_cmn600_acpi_probe() swaps them when the first does not contain the second).
bool split_cfg_root(const std::vector<acpi::IomemRange>& ranges, CmnLocation& loc) {
  for (const auto& cfg : ranges)
    for (const auto& root : ranges)
      if (&cfg != &root && root.start >= cfg.start && root.end <= cfg.end && cfg.bytes()) {
        loc.base = cfg.start;
        loc.size = *cfg.bytes();
        loc.root_offset = root.start - cfg.start;
        return true;
      }
  return false;
}

// The second source: the ranges the kernel gave the platform device. Usable only when the region
// is proven (region_proof.h): never a PCI function's BAR, never System RAM.
void resources_from_iomem(Machine& machine, const acpi::Iomem& iomem, bool two_resources, CmnLocation& loc) {
  const std::string iomem_file = machine.param("iomem.path").string();
  if (!iomem.readable) {
    loc.notes.push_back(fmt::format("{} cannot be read: the configuration region is unknown", iomem_file));
    return;
  }
  auto ranges = ranges_named(iomem, loc.device);
  if (ranges.empty()) {
    loc.notes.push_back(
        fmt::format("no memory range named {} in {}: the platform device was not created", loc.device, iomem_file));
    return;
  }
  if (iomem.addresses_hidden) {
    loc.notes.push_back(
        fmt::format("{} shows addresses only to root (reads 0-0): run as root to walk the mesh", iomem_file));
    return;
  }
  if (two_resources) {
    if (!split_cfg_root(ranges, loc)) {
      loc.notes.push_back(fmt::format("{} lists {} range(s) for {}; a CMN-600 has two, the configuration region and "
                                      "the root node inside it",
                                      iomem_file, ranges.size(), loc.device));
      return;
    }
  } else if (!ranges.front().bytes()) {
    loc.notes.push_back(fmt::format("{} names {:#x}-{:#x} for {}: the whole address space, not a configuration region",
                                    iomem_file, ranges.front().start, ranges.front().end, loc.device));
    return;
  } else {
    loc.base = ranges.front().start;
    loc.size = *ranges.front().bytes();
    if (ranges.size() > 1)
      loc.notes.push_back(fmt::format("{} lists {} ranges for {}; the first is taken as the configuration region",
                                      iomem_file, ranges.size(), loc.device));
  }
  prove(machine, iomem, {loc.device}, loc);
}

// The platform device the ACPI core made for `dev`, named as the ACPI device (ARMHC700:00): the
// name /proc/iomem gives the mesh's ranges. A device bound to anything else (a PCI function, whose
// BARs /proc/iomem names by its address) is not a mesh pmukit maps.
bool platform_device_of(const Machine& machine, const acpi::AcpiDevice& dev, CmnLocation& loc) {
  if (!dev.physical_node) {
    loc.notes.push_back(fmt::format("ACPI device {} has no physical_node: the kernel made no platform device for it, "
                                    "so nothing but the _HID says where the mesh is; not mapped",
                                    dev.name));
    return false;
  }
  if (*dev.physical_node != dev.name) {
    loc.notes.push_back(fmt::format("ACPI device {} is bound to {}, not to the platform device {} the ACPI core makes "
                                    "for a mesh: not mapped",
                                    dev.name, *dev.physical_node, dev.name));
    return false;
  }
  if (auto dir = machine.files().resolve(machine.param("acpidev.path") / dev.name / "physical_node"))
    loc.device_dir = *dir;
  return true;
}

std::optional<std::uint64_t> be_cells(const std::string& bytes, std::size_t at, unsigned cells) {
  if (cells > 2 || bytes.size() < at + 4ull * cells) return std::nullopt;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 4ull * cells; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

// A devicetree property: its bytes, or nullopt when absent (a property is at most a page here).
std::optional<std::string> property(const Machine& machine, const fs::path& file) {
  try {
    return machine.files().read_text(file, kAttributeLimit);
  } catch (const Error&) {
    return std::nullopt;  // not a regular file, or longer than any property pmukit reads
  }
}

unsigned cells_of(const Machine& machine, const fs::path& dir, const char* prop, unsigned fallback) {
  auto b = property(machine, dir / prop);
  auto v = b ? be_cells(*b, 0, 1) : std::nullopt;
  return v ? static_cast<unsigned>(*v) : fallback;  // devicetree spec defaults: 2 address, 1 size
}

std::vector<std::string> strings_of(const std::string& prop) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : prop) {
    if (c) {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Only a present, non-empty compatible string names a mesh (strings_of drops empty ones, and an
// ACPI entry's empty dt_compatible matches nothing).
const platform::CmnFirmwareId* dt_match(const Machine& machine, const fs::path& dir, const platform::CmnData& data) {
  auto compat = property(machine, dir / "compatible");
  if (!compat) return nullptr;
  for (const auto& c : strings_of(*compat))  // most specific first
    for (const auto& id : data.firmware)
      if (!id.dt_compatible.empty() && id.dt_compatible == c) return &id;
  return nullptr;
}

// The names the kernel gives the node's first reg range in /proc/iomem: its reg-names entry or
// the node's name (of_address_to_resource()), and the platform device's once arm-cmn claims it.
std::vector<std::string> iomem_names(const Machine& machine, const fs::path& dir, const std::string& device) {
  std::vector<std::string> names;
  if (auto reg_names = property(machine, dir / "reg-names")) {
    auto s = strings_of(*reg_names);
    if (!s.empty()) names.push_back(s.front());
  }
  names.push_back(dir.filename().string());
  names.push_back(device);
  return names;
}

void dt_location(Machine& machine, const fs::path& dir, const std::string& rel, const platform::CmnFirmwareId& id,
                 std::vector<CmnLocation>& out, std::vector<std::string>& warnings) {
  CmnLocation loc;
  loc.firmware = "devicetree " + rel;
  loc.part = id.part;
  if (auto status = property(machine, dir / "status")) {
    auto s = strings_of(*status);
    if (!s.empty() && s[0] != "okay" && s[0] != "ok") {
      warnings.push_back(fmt::format("{}: status \"{}\": skipped", loc.firmware, s[0]));
      return;
    }
  }
  unsigned ac = cells_of(machine, dir.parent_path(), "#address-cells", 2),
           sc = cells_of(machine, dir.parent_path(), "#size-cells", 1);
  auto reg = property(machine, dir / "reg");
  std::optional<std::uint64_t> base, size;
  if (reg) {
    base = be_cells(*reg, 0, ac);
    size = be_cells(*reg, 4ull * ac, sc);
  }
  std::string node = dir.filename().string();
  loc.device = fmt::format("{:x}.{}", base.value_or(0), node.substr(0, node.find('@')));
  loc.device_dir = machine.param("platformdev.path") / loc.device;
  loc.base = base.value_or(0);
  loc.size = size.value_or(0);
  bool described = base && size;
  if (!described) {
    loc.notes.push_back(fmt::format("reg of {} does not hold {} address and {} size cells", rel, ac, sc));
  } else if (id.root_node == "arm,root-node") {
    auto root = property(machine, dir / "arm,root-node");
    auto v = root ? be_cells(*root, 0, 1) : std::nullopt;
    if (!v)
      loc.notes.push_back(
          fmt::format("{} has no arm,root-node property, which a CMN-600 needs (Linux fails to probe it)", rel));
    loc.root_offset = v.value_or(0);
    described = v.has_value();
  }
  if (described) {
    auto iomem = acpi::read_iomem(machine);
    prove(machine, iomem, iomem_names(machine, dir, loc.device), loc);
  }
  out.push_back(std::move(loc));
}

// Depth-first over the devicetree, in name order; bounded in depth and in directories visited.
void scan_dt(Machine& machine, const fs::path& dir, const std::string& rel, unsigned depth, unsigned& budget,
             const platform::CmnData& data, std::vector<CmnLocation>& out, std::vector<std::string>& warnings) {
  std::vector<std::string> children;
  for (const auto& e : machine.files().list(dir, limits::kDirEntries).value_or(std::vector<DirEntry>{}))
    if (e.type == DT_DIR) children.push_back(e.name);
  std::sort(children.begin(), children.end());
  for (const auto& name : children) {
    if (budget == 0) return;
    --budget;
    fs::path c = dir / name;
    std::string crel = rel + "/" + name;
    if (const auto* id = dt_match(machine, c, data)) dt_location(machine, c, crel, *id, out, warnings);
    if (depth < 8) scan_dt(machine, c, crel, depth + 1, budget, data, out, warnings);
  }
}

}  // namespace

std::vector<CmnLocation> locate_cmn_acpi(Machine& machine, const std::vector<acpi::AcpiDevice>& devices,
                                         const platform::CmnData& data, std::vector<std::string>& warnings) {
  std::vector<CmnLocation> out;
  std::optional<acpi::Iomem> iomem;
  for (const auto& dev : devices) {
    // Only a present, non-empty _HID names a mesh: hid-less devices (device:NN) match nothing.
    auto id = std::find_if(data.firmware.begin(), data.firmware.end(),
                           [&](const auto& f) { return dev.has_hid(f.acpi_hid); });
    if (id == data.firmware.end()) continue;
    if (!dev.present()) {
      warnings.push_back(
          fmt::format("ACPI device {}: _STA {:#x} says not present: skipped", dev.name, dev.status.value_or(0)));
      continue;
    }
    if (!iomem) iomem = acpi::read_iomem(machine);
    CmnLocation loc;
    loc.firmware = dev.path.empty() ? "ACPI " + dev.name : fmt::format("ACPI {} {}", dev.name, dev.path);
    loc.device = dev.name;
    loc.part = id->part;
    if (platform_device_of(machine, dev, loc))
      resources_from_iomem(machine, *iomem, id->root_node == "second_resource", loc);
    out.push_back(std::move(loc));
  }
  return out;
}

std::vector<CmnLocation> locate_cmn_dt(Machine& machine, const platform::CmnData& data,
                                       std::vector<std::string>& warnings) {
  std::vector<CmnLocation> out;
  unsigned budget = 20000;  // directories: far above any real devicetree, far below a loop's cost
  scan_dt(machine, machine.param("devicetree.path"), "", 0, budget, data, out, warnings);
  return out;
}

std::string kernel_cmn_pmu(const Machine& machine, const fs::path& device_dir) {
  if (device_dir.empty()) return "";
  std::vector<std::string> names;
  for (const auto& e : machine.files().list(device_dir, limits::kDirEntries).value_or(std::vector<DirEntry>{}))
    if (e.name.starts_with("arm_cmn_")) names.push_back(e.name);
  std::sort(names.begin(), names.end());
  return names.empty() ? "" : names.front();
}

}  // namespace pmukit::discovery
