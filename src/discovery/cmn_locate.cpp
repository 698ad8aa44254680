// pmukit -- Arm CMN configuration regions from ACPI devices and /proc/iomem, or the devicetree.
#include "cmn_locate.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/file.h"

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

void resources_from_iomem(const acpi::Iomem& iomem, const std::string& iomem_file, bool two_resources,
                          CmnLocation& loc) {
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
  loc.usable = true;
}

std::optional<std::uint64_t> be_cells(const std::string& bytes, std::size_t at, unsigned cells) {
  if (cells > 2 || bytes.size() < at + 4ull * cells) return std::nullopt;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 4ull * cells; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

unsigned cells_of(const fs::path& dir, const char* prop, unsigned fallback) {
  auto b = try_read_file(dir / prop);
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

const platform::CmnFirmwareId* dt_match(const fs::path& dir, const platform::CmnData& data) {
  auto compat = try_read_file(dir / "compatible");
  if (!compat) return nullptr;
  for (const auto& c : strings_of(*compat))  // most specific first
    for (const auto& id : data.firmware)
      if (id.dt_compatible == c) return &id;
  return nullptr;
}

void dt_location(const Machine& machine, const fs::path& dir, const std::string& rel, const platform::CmnFirmwareId& id,
                 std::vector<CmnLocation>& out, std::vector<std::string>& warnings) {
  CmnLocation loc;
  loc.firmware = "devicetree " + rel;
  loc.part = id.part;
  if (auto status = try_read_file(dir / "status")) {
    auto s = strings_of(*status);
    if (!s.empty() && s[0] != "okay" && s[0] != "ok") {
      warnings.push_back(fmt::format("{}: status \"{}\": skipped", loc.firmware, s[0]));
      return;
    }
  }
  unsigned ac = cells_of(dir.parent_path(), "#address-cells", 2), sc = cells_of(dir.parent_path(), "#size-cells", 1);
  auto reg = try_read_file(dir / "reg");
  std::optional<std::uint64_t> base, size;
  if (reg) {
    base = be_cells(*reg, 0, ac);
    size = be_cells(*reg, 4ull * ac, sc);
  }
  std::string node = dir.filename().string();
  loc.device = fmt::format("{:x}.{}", base.value_or(0), node.substr(0, node.find('@')));
  loc.device_dir = machine.param("platformdev.path") / loc.device;
  if (!base || !size) {
    loc.notes.push_back(fmt::format("reg of {} does not hold {} address and {} size cells", rel, ac, sc));
  } else if (id.root_node == "arm,root-node") {
    auto root = try_read_file(dir / "arm,root-node");
    auto v = root ? be_cells(*root, 0, 1) : std::nullopt;
    if (!v)
      loc.notes.push_back(
          fmt::format("{} has no arm,root-node property, which a CMN-600 needs (Linux fails to probe it)", rel));
    loc.root_offset = v.value_or(0);
    loc.usable = v.has_value();
  } else {
    loc.usable = true;
  }
  loc.base = base.value_or(0);
  loc.size = size.value_or(0);
  out.push_back(std::move(loc));
}

// Depth-first over the devicetree, in name order; bounded in depth and in directories visited.
void scan_dt(const Machine& machine, const fs::path& dir, const std::string& rel, unsigned depth, unsigned& budget,
             const platform::CmnData& data, std::vector<CmnLocation>& out, std::vector<std::string>& warnings) {
  std::vector<fs::path> children;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && !e.is_symlink(ec)) children.push_back(e.path());
  std::sort(children.begin(), children.end());
  for (const auto& c : children) {
    if (budget == 0) return;
    --budget;
    std::string crel = rel + "/" + c.filename().string();
    if (const auto* id = dt_match(c, data)) dt_location(machine, c, crel, *id, out, warnings);
    if (depth < 8) scan_dt(machine, c, crel, depth + 1, budget, data, out, warnings);
  }
}

}  // namespace

std::vector<CmnLocation> locate_cmn_acpi(const Machine& machine, const std::vector<acpi::AcpiDevice>& devices,
                                         const platform::CmnData& data, std::vector<std::string>& warnings) {
  std::vector<CmnLocation> out;
  std::optional<acpi::Iomem> iomem;
  for (const auto& dev : devices) {
    auto id =
        std::find_if(data.firmware.begin(), data.firmware.end(), [&](const auto& f) { return f.acpi_hid == dev.hid; });
    if (id == data.firmware.end()) continue;
    if (!dev.present()) {
      warnings.push_back(
          fmt::format("ACPI device {}: _STA {:#x} says not present: skipped", dev.name, dev.status.value_or(0)));
      continue;
    }
    if (!iomem) iomem = acpi::read_iomem(machine);
    CmnLocation loc;
    loc.firmware = dev.path.empty() ? "ACPI " + dev.name : fmt::format("ACPI {} {}", dev.name, dev.path);
    loc.device = dev.physical_node.value_or(dev.name);
    std::error_code ec;
    auto dir = fs::canonical(machine.param("acpidev.path") / dev.name / "physical_node", ec);
    if (!ec) loc.device_dir = dir;
    loc.part = id->part;
    resources_from_iomem(*iomem, machine.param("iomem.path").string(), id->root_node == "second_resource", loc);
    out.push_back(std::move(loc));
  }
  return out;
}

std::vector<CmnLocation> locate_cmn_dt(const Machine& machine, const platform::CmnData& data,
                                       std::vector<std::string>& warnings) {
  std::vector<CmnLocation> out;
  unsigned budget = 20000;  // directories: far above any real devicetree, far below a loop's cost
  scan_dt(machine, machine.param("devicetree.path"), "", 0, budget, data, out, warnings);
  return out;
}

std::string kernel_cmn_pmu(const fs::path& device_dir) {
  if (device_dir.empty()) return "";
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(device_dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.starts_with("arm_cmn_")) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  return names.empty() ? "" : names.front();
}

}  // namespace pmukit::discovery
