// pmukit -- ACPI devices from sysfs, processor UIDs, and /proc/iomem.
#include "pmukit/acpi/devices.h"

#include <algorithm>

#include "pmukit/access/machine.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit::acpi {

namespace fs = std::filesystem;

std::optional<std::uint64_t> AcpiDevice::uid_number() const {
  return uid ? parse_u64(*uid) : std::nullopt;
}

namespace {

// A sysfs identity attribute: nullopt when the file is absent or holds nothing.
std::optional<std::string> identity(const ConfinedRoot& files, const fs::path& file) {
  auto v = files.read_line(file);
  if (!v || v->empty()) return std::nullopt;
  return v;
}

std::optional<std::string> link_name(const ConfinedRoot& files, const fs::path& link) {
  auto target = files.read_link(link);
  if (!target || target->empty()) return std::nullopt;
  return fs::path(*target).filename().string();
}

}  // namespace

std::vector<AcpiDevice> list_devices(const Machine& machine) {
  std::vector<AcpiDevice> out;
  const auto& files = machine.files();
  auto bus = machine.param("acpidev.path");
  for (const auto& entry : files.list(bus, limits::kDirEntries).value_or(std::vector<DirEntry>{})) {
    AcpiDevice d;
    d.name = entry.name;
    // The bus entry is a link into /sys/devices/LNXSYSTM:00/...; the real directory's parents
    // are the device's ACPI ancestors. Resolved inside the root, and never above it.
    fs::path dir = files.resolve(bus / entry.name).value_or(bus / entry.name);
    d.hid = identity(files, dir / "hid");
    d.uid = identity(files, dir / "uid");
    d.path = files.read_line(dir / "path").value_or("");
    if (auto st = files.read_int(dir / "status")) d.status = static_cast<std::uint32_t>(*st);
    d.physical_node = link_name(files, dir / "physical_node");
    for (fs::path p = dir.parent_path(); files.below(p) && !files.below(p)->empty(); p = p.parent_path()) {
      auto hid = identity(files, p / "hid");
      if (!hid) break;
      d.ancestors.push_back({p.filename().string(), *hid, identity(files, p / "uid")});
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const AcpiDevice& a, const AcpiDevice& b) { return a.name < b.name; });
  return out;
}

Processors processors(const std::vector<AcpiDevice>& devices) {
  Processors p;
  for (const auto& d : devices) {
    if ((!d.has_hid("ACPI0007") && !d.has_hid("LNXCPU")) || !d.physical_node) continue;
    const std::string& node = *d.physical_node;
    if (!node.starts_with("cpu")) continue;
    auto cpu = parse_u64(std::string_view(node).substr(3));
    auto uid = d.uid_number();
    if (!cpu || !uid) continue;
    p.uid_to_cpu[*uid] = static_cast<int>(*cpu);
    for (const auto& a : d.ancestors)
      if (a.hid == "ACPI0010" && a.uid)
        if (auto cuid = parse_u64(*a.uid)) p.container_cpus[*cuid].push_back(static_cast<int>(*cpu));
  }
  for (auto& [uid, cpus] : p.container_cpus) std::sort(cpus.begin(), cpus.end());
  return p;
}

std::vector<IomemRange> Iomem::named(std::string_view name) const {
  std::vector<IomemRange> out;
  for (const auto& r : ranges) {
    if (r.name != name) continue;
    if (!out.empty()) {
      const auto& prev = out.back();
      // A driver's claim sits one level below the platform device's resource of the same name.
      bool nested = r.depth > prev.depth && (addresses_hidden || (r.start >= prev.start && r.end <= prev.end));
      bool same = !addresses_hidden && r.start == prev.start && r.end == prev.end;
      if (nested || same) continue;
    }
    out.push_back(r);
  }
  return out;
}

Iomem parse_iomem(std::string_view text) {
  Iomem m;
  m.readable = true;
  bool any_address = false;
  for (std::string_view line : split(text, '\n')) {
    std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string_view::npos) continue;
    auto colon = line.find(" : ");
    auto dash = line.find('-', indent);
    if (colon == std::string_view::npos || dash == std::string_view::npos || dash > colon) continue;
    auto start = parse_hex(line.substr(indent, dash - indent));
    auto end = parse_hex(trim(line.substr(dash + 1, colon - dash - 1)));
    if (!start || !end || *end < *start) continue;  // the kernel prints no range that ends before it starts
    m.ranges.push_back({*start, *end, std::string(line.substr(colon + 3)), static_cast<unsigned>(indent / 2)});
    any_address = any_address || *start || *end;
  }
  m.addresses_hidden = !m.ranges.empty() && !any_address;
  return m;
}

Iomem read_iomem(const Machine& machine) {
  auto text = machine.files().read_text(machine.param("iomem.path"), kProcTextLimit);
  if (!text) return Iomem{};
  return parse_iomem(*text);
}

}  // namespace pmukit::acpi
