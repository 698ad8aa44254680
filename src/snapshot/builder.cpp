// pmukit -- snapshot tree writer.
#include "pmukit/snapshot/builder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit::snapshot {

namespace {

// pwrite into a (possibly sparse) file, creating it.
void pwrite_file(const std::filesystem::path& file, std::uint64_t offset, std::span<const std::uint8_t> data) {
  std::filesystem::create_directories(file.parent_path());
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw_errno(file.string(), errno);
  ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(offset));
  int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(data.size()))
    throw_errno(fmt::format("{}: write at {:#x}", file.string(), offset), err);
}

void extend_file(const std::filesystem::path& file, std::uint64_t size) {
  std::filesystem::create_directories(file.parent_path());
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw_errno(file.string(), errno);
  off_t cur = ::lseek(fd, 0, SEEK_END);
  int rc = cur >= 0 && static_cast<std::uint64_t>(cur) < size ? ::ftruncate(fd, static_cast<off_t>(size)) : 0;
  ::close(fd);
  if (rc != 0) throw_errno(file.string(), errno);
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
  std::filesystem::create_directories(root_);
  std::filesystem::create_directories(path("/sys/bus/pci/devices"));
}

std::filesystem::path SnapshotBuilder::path(std::string_view abs) const {
  return root_ / std::filesystem::path(abs).relative_path();
}

std::filesystem::path SnapshotBuilder::device_dir(const Bdf& bdf) const {
  return path("/sys/bus/pci/devices") / bdf.str();
}

void SnapshotBuilder::add_pci_device(const PciDeviceSpec& spec) {
  auto dir = device_dir(spec.bdf);
  std::filesystem::create_directories(dir);
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
  for (const auto& b : spec.bars) extend_file(dir / fmt::format("resource{}", b.index), b.size);
  if (spec.has_config)
    write_file(dir / "config", std::string_view(reinterpret_cast<const char*>(cfg.bytes.data()), spec.config_size));
  bars_[spec.bdf] = spec.bars;
}

void SnapshotBuilder::write_bar(const Bdf& bdf, int bar, std::uint64_t offset, std::span<const std::uint8_t> data) {
  pwrite_file(device_dir(bdf) / fmt::format("resource{}", bar), offset, data);
}

void SnapshotBuilder::write_phys(std::uint64_t phys, std::span<const std::uint8_t> data) {
  for (const auto& [bdf, bars] : bars_)
    for (const auto& b : bars)
      if (phys >= b.base && phys - b.base + data.size() <= b.size) return write_bar(bdf, b.index, phys - b.base, data);
  // dev/mem is a sparse file: extend it to the next GiB so windows around written registers
  // (a 16 KiB IMC box, a 4 KiB CoreSight page) map without running past its end.
  pwrite_file(path("/dev/mem"), phys, data);
  extend_file(path("/dev/mem"), (phys + data.size() + (1ull << 30)) & ~((1ull << 30) - 1));
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
  pwrite_file(device_dir(bdf) / "config", offset, data);
}

void SnapshotBuilder::add_cpu(int cpu, int package, int die, int node) {
  cpus_[cpu] = {package, die, node};
  auto topo = path("/sys/devices/system/cpu") / fmt::format("cpu{}", cpu) / "topology";
  write_file(topo / "physical_package_id", fmt::format("{}\n", package));
  write_file(topo / "die_id", fmt::format("{}\n", die));
  write_file(topo / "core_id", fmt::format("{}\n", cpu));
  rewrite_topology_files();
}

void SnapshotBuilder::rewrite_topology_files() {
  std::map<int, std::vector<int>> nodes;
  std::string all;
  for (const auto& [cpu, t] : cpus_) {
    if (std::get<2>(t) >= 0) nodes[std::get<2>(t)].push_back(cpu);
    all += (all.empty() ? "" : ",") + std::to_string(cpu);
  }
  write_file(path("/sys/devices/system/cpu/online"), all + "\n");
  write_file(path("/sys/devices/system/cpu/present"), all + "\n");
  for (const auto& [node, cpus] : nodes) {
    std::string list;
    for (int c : cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
    write_file(path("/sys/devices/system/node") / fmt::format("node{}", node) / "cpulist", list + "\n");
  }
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
    }
  }
  write_file(path("/proc/cpuinfo"), text);
}

void SnapshotBuilder::set_msr(int cpu, std::uint32_t msr, std::uint64_t value) {
  std::uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
  pwrite_file(path("/dev/cpu") / std::to_string(cpu) / "msr", static_cast<std::uint64_t>(msr) * 8, b);
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

std::optional<std::string> synthetic_label(const std::filesystem::path& root) {
  return try_read_line(root / std::string(kSyntheticMarker));
}

}  // namespace pmukit::snapshot
