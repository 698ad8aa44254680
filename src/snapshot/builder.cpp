// pmukit -- snapshot tree writer.
#include "pmukit/snapshot/builder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/confined_root.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit::snapshot {

namespace {

// Opens (creating) a file below the root for writing, never through a final link.
UniqueFd open_for_write(const ConfinedRoot& files, const std::filesystem::path& file) {
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK;
  auto r = files.open(file, flags, 0644);
  if (!r.fd && r.err == ENOENT) {
    files.create_directories(file.parent_path());
    r = files.open(file, flags, 0644);
  }
  if (!r.fd) throw_errno(file.string(), r.err);
  return std::move(r.fd);
}

// pwrite into a (possibly sparse) file, creating it.
void pwrite_file(const ConfinedRoot& files, const std::filesystem::path& file, std::uint64_t offset,
                 std::span<const std::uint8_t> data) {
  auto fd = open_for_write(files, file);
  if (offset > static_cast<std::uint64_t>(INT64_MAX) - data.size())
    throw Error(fmt::format("{}: offset {:#x} is beyond any file", file.string(), offset));
  ssize_t n = ::pwrite(fd.get(), data.data(), data.size(), static_cast<off_t>(offset));
  if (n != static_cast<ssize_t>(data.size()))
    throw_errno(fmt::format("{}: write at {:#x}", file.string(), offset), n < 0 ? errno : EIO);
}

void extend_file(const ConfinedRoot& files, const std::filesystem::path& file, std::uint64_t size) {
  auto fd = open_for_write(files, file);
  if (size > static_cast<std::uint64_t>(INT64_MAX)) throw Error(fmt::format("{}: size {:#x}", file.string(), size));
  off_t cur = ::lseek(fd.get(), 0, SEEK_END);
  int rc = cur >= 0 && static_cast<std::uint64_t>(cur) < size ? ::ftruncate(fd.get(), static_cast<off_t>(size)) : 0;
  if (rc != 0) throw_errno(fmt::format("{}: extend to {:#x} bytes", file.string(), size), errno);
}

// IORESOURCE_* flags as the kernel prints them in the sysfs resource file.
std::uint64_t resource_flags(const BarSpec& b) {
  std::uint64_t f = 0x200 | 0x40000;  // IORESOURCE_MEM | IORESOURCE_SIZEALIGN
  if (b.mem64) f |= 0x100000 | 0x4;   // IORESOURCE_MEM_64, PCI_BASE_ADDRESS_MEM_TYPE_64
  if (b.prefetchable) f |= 0x2000 | 0x8;
  return f;
}

}  // namespace

SnapshotBuilder::SnapshotBuilder(std::filesystem::path root) : root_(std::move(root)) {
  make_directories(root_);
  // From here on every file is created inside the root: no name, "..", or link leads out.
  files_ = std::make_unique<ConfinedRoot>(root_);
  files_->create_directories(path("/sys/bus/pci/devices"));
}

SnapshotBuilder::~SnapshotBuilder() = default;

void SnapshotBuilder::write_file(const std::filesystem::path& file, std::string_view data) {
  files_->write_file(file, data);
}

std::filesystem::path SnapshotBuilder::path(std::string_view abs) const {
  // "/X" under the root, with ".." stopping at the root as it does for the machine reading it:
  // no name the builder is handed lands outside the tree.
  std::filesystem::path rel;
  for (const auto& part : std::filesystem::path(abs).relative_path()) {
    if (part == "..")
      rel = rel.parent_path();
    else if (part != "." && !part.empty())
      rel /= part;
  }
  return root_ / rel;
}

std::filesystem::path SnapshotBuilder::device_dir(const Bdf& bdf) const {
  return path("/sys/bus/pci/devices") / bdf.str();
}

void SnapshotBuilder::add_pci_device(const PciDeviceSpec& spec) {
  auto dir = device_dir(spec.bdf);
  if (spec.config_size > spec.config.bytes.size())
    throw Error(fmt::format("{}: config_size {} is larger than PCIe config space ({} bytes)", spec.bdf.str(),
                            spec.config_size, spec.config.bytes.size()));
  files_->create_directories(dir);
  ConfigImage cfg = spec.config;
  for (const auto& b : spec.bars) cfg.set_memory_bar(b.index, b.base, b.mem64, b.prefetchable);
  auto id16 = [&](unsigned off) { return static_cast<unsigned>(cfg.bytes[off] | cfg.bytes[off + 1] << 8); };
  write_file(dir / "vendor", fmt::format("{:#06x}\n", id16(0)));
  write_file(dir / "device", fmt::format("{:#06x}\n", id16(2)));
  write_file(dir / "class", fmt::format("{:#08x}\n", cfg.r32(0x08) >> 8));
  write_file(dir / "revision", fmt::format("{:#04x}\n", cfg.bytes[0x08]));
  write_file(dir / "subsystem_vendor", fmt::format("{:#06x}\n", id16(0x2c)));
  write_file(dir / "subsystem_device", fmt::format("{:#06x}\n", id16(0x2e)));
  write_file(dir / "irq", "0\n");
  write_file(dir / "numa_node", fmt::format("{}\n", spec.numa_node));
  std::string resource;
  for (int i = 0; i < 17; ++i) {  // PCI_NUM_RESOURCES lines, as the kernel prints them
    const BarSpec* bar = nullptr;
    for (const auto& b : spec.bars)
      if (b.index == i) bar = &b;
    if (bar)
      resource +=
          fmt::format("{:#018x} {:#018x} {:#018x}\n", bar->base, bar->base + bar->size - 1, resource_flags(*bar));
    else
      resource += fmt::format("{:#018x} {:#018x} {:#018x}\n", 0, 0, 0);
  }
  write_file(dir / "resource", resource);
  for (const auto& b : spec.bars) extend_file(*files_, dir / fmt::format("resource{}", b.index), b.size);
  if (spec.has_config)
    write_file(dir / "config", std::string_view(reinterpret_cast<const char*>(cfg.bytes.data()), spec.config_size));
  bars_[spec.bdf] = spec.bars;
}

void SnapshotBuilder::write_bar(const Bdf& bdf, int bar, std::uint64_t offset, std::span<const std::uint8_t> data) {
  pwrite_file(*files_, device_dir(bdf) / fmt::format("resource{}", bar), offset, data);
}

void SnapshotBuilder::write_phys(std::uint64_t phys, std::span<const std::uint8_t> data) {
  for (const auto& [bdf, bars] : bars_)
    for (const auto& b : bars)
      if (phys >= b.base && phys - b.base + data.size() <= b.size) return write_bar(bdf, b.index, phys - b.base, data);
  // dev/mem is a sparse file: extend it to the next GiB so windows around written registers
  // (a 16 KiB IMC box, a 4 KiB CoreSight page) map without running past its end.
  pwrite_file(*files_, path("/dev/mem"), phys, data);
  extend_file(*files_, path("/dev/mem"), (phys + data.size() + (1ull << 30)) & ~((1ull << 30) - 1));
}

void SnapshotBuilder::write_phys64(std::uint64_t phys, std::uint64_t value) {
  std::uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
  write_phys(phys, b);
}

void SnapshotBuilder::write_phys32(std::uint64_t phys, std::uint32_t value) {
  std::uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
  write_phys(phys, b);
}

void SnapshotBuilder::write_config(const Bdf& bdf, unsigned offset, std::span<const std::uint8_t> data) {
  pwrite_file(*files_, device_dir(bdf) / "config", offset, data);
}

void SnapshotBuilder::add_cpu(int cpu, int package, int die, int node) {
  CpuPlacement one{cpu, package, die, node};
  add_cpus(std::span<const CpuPlacement>(&one, 1));
}

void SnapshotBuilder::add_cpus(std::span<const CpuPlacement> cpus) {
  // The per-CPU files, then the machine-wide lists once (rewriting them per CPU is quadratic).
  for (const auto& c : cpus) {
    cpus_[c.cpu] = {c.package, c.die, c.node};
    auto topo = path("/sys/devices/system/cpu") / fmt::format("cpu{}", c.cpu) / "topology";
    write_file(topo / "physical_package_id", fmt::format("{}\n", c.package));
    write_file(topo / "die_id", fmt::format("{}\n", c.die));
    write_file(topo / "core_id", fmt::format("{}\n", c.cpu));
  }
  rewrite_topology_files();
}

// A cpu list as Linux writes it (ranges), into a sysfs attribute: one that would not fit a page
// (kAttributeLimit, what every tool reads of one) is refused here, not by every later reader.
void SnapshotBuilder::write_cpu_list(const std::filesystem::path& file, const std::vector<int>& cpus) {
  std::string text = format_cpu_list(cpus) + "\n";
  if (text.size() > kAttributeLimit)
    throw Error(fmt::format("{}: a list of {} CPUs takes {} bytes, more than a sysfs attribute holds ({} bytes)",
                            file.string(), cpus.size(), text.size(), kAttributeLimit));
  write_file(file, text);
}

void SnapshotBuilder::rewrite_topology_files() {
  std::map<int, std::vector<int>> nodes;
  std::vector<int> all;
  for (const auto& [cpu, t] : cpus_) {
    if (std::get<2>(t) >= 0) nodes[std::get<2>(t)].push_back(cpu);
    all.push_back(cpu);
  }
  write_cpu_list(path("/sys/devices/system/cpu/online"), all);
  write_cpu_list(path("/sys/devices/system/cpu/present"), all);
  for (const auto& [node, cpus] : nodes)
    write_cpu_list(path("/sys/devices/system/node") / fmt::format("node{}", node) / "cpulist", cpus);
  if (cpuinfo_) set_cpuinfo(*cpuinfo_);
}

void SnapshotBuilder::set_cpuinfo(const CpuInfo& info) {
  cpuinfo_ = info;
  std::string text;
  for (const auto& [cpu, t] : cpus_) {
    text += fmt::format("processor\t: {}\n", cpu);
    if (info.vendor.empty()) {
      text += fmt::format("CPU implementer\t: {:#04x}\nCPU architecture: 8\nCPU variant\t: 0x0\n"
                          "CPU part\t: {:#05x}\nCPU revision\t: 0\n\n",
                          info.arm_implementer, info.arm_part);
    } else {
      text += fmt::format("vendor_id\t: {}\ncpu family\t: {}\nmodel\t\t: {}\nmodel name\t: {}\nstepping\t: {}\n"
                          "physical id\t: {}\n\n",
                          info.vendor, info.family, info.model, info.model_name, info.stepping, std::get<0>(t));
      if (!info.flags.empty()) text.insert(text.size() - 1, fmt::format("flags\t\t: {}\n", info.flags));
    }
  }
  write_file(path("/proc/cpuinfo"), text);
}

void SnapshotBuilder::set_msr(int cpu, std::uint32_t msr, std::uint64_t value) {
  std::uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
  pwrite_file(*files_, path("/dev/cpu") / std::to_string(cpu) / "msr", static_cast<std::uint64_t>(msr) * 8, b);
}

void SnapshotBuilder::add_acpi_table(const std::string& signature, std::span<const std::uint8_t> bytes) {
  write_file(path("/sys/firmware/acpi/tables") / signature,
             std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

void SnapshotBuilder::write_text(std::string_view abs_path, std::string_view text) {
  write_file(path(abs_path), text);
}

void SnapshotBuilder::set_synthetic_label(std::string_view label) {
  write_file(root_ / std::string(kSyntheticMarker), std::string(label) + "\n");
}

void SnapshotBuilder::make_link(std::string_view link_abs, std::string_view target_abs) {
  std::filesystem::path l = path(link_abs), t = path(target_abs);
  auto rel_link = files_->below(l);
  if (!rel_link || rel_link->empty() || !files_->below(t))
    throw Error(fmt::format("{} -> {}: a link must stay inside {}", link_abs, target_abs, root_.string()));
  files_->create_directories(l.parent_path());
  // Relative, as sysfs makes them, so the tree stays valid wherever it is moved; placed in the
  // directory resolved inside the root.
  auto parent = files_->open(l.parent_path(), O_PATH | O_DIRECTORY);
  if (!parent.fd) throw_errno(l.parent_path().string(), parent.err);
  std::string name = l.filename().string();
  ::unlinkat(parent.fd.get(), name.c_str(), 0);
  std::string target = t.lexically_relative(l.parent_path()).string();
  if (::symlinkat(target.c_str(), parent.fd.get(), name.c_str()) != 0) throw_errno(l.string(), errno);
}

std::optional<std::string> synthetic_label(const Machine& machine) {
  if (machine.is_live()) return std::nullopt;
  auto text = machine.files().read_text(machine.root() / std::string(kSyntheticMarker), kAttributeLimit);
  if (!text) return std::nullopt;
  return first_line(*text);
}

}  // namespace pmukit::snapshot
