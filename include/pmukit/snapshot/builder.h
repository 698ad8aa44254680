// pmukit -- writes a machine tree (a "snapshot") under a root directory: the sysfs PCI files libpci
// reads, BAR resourceN files, dev/mem, dev/cpu/N/msr, CPU topology, /proc/cpuinfo and ACPI
// tables. Unit tests build exactly the machine they need; bundled synthetic machines and captured
// machines share the format (docs/snapshot-format.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/snapshot/config_image.h"

namespace pmukit {
class ConfinedRoot;
class Machine;
}  // namespace pmukit

namespace pmukit::snapshot {

struct BarSpec {
  int index = 0;
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  bool mem64 = true;
  bool prefetchable = false;
};

struct PciDeviceSpec {
  Bdf bdf;
  ConfigImage config{0xffff, 0xffff, 0};
  unsigned config_size = 4096;  // bytes written to the sysfs config file (64, 256 or 4096)
  bool has_config = true;       // false: a device directory without a config file
  int numa_node = -1;
  std::vector<BarSpec> bars;  // also programmed into the config image's BAR registers
};

struct CpuInfo {
  std::string vendor = "GenuineIntel";  // "GenuineIntel", "AuthenticAMD", or "" for Arm
  unsigned family = 6;
  unsigned model = 0;
  unsigned stepping = 0;
  std::string model_name = "Synthetic CPU";
  std::string flags;  // x86 "flags" line ("fpu ... hypervisor"); none written when empty
  // Arm (/proc/cpuinfo "CPU implementer" / "CPU part")
  unsigned arm_implementer = 0;
  unsigned arm_part = 0;
};

struct CpuPlacement {
  int cpu = 0, package = 0, die = 0, node = -1;
};

// Every file is written inside the root (util/confined_root.h): a name with "..", an absolute
// name or a link planted in the tree cannot make the builder write outside it.
class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(std::filesystem::path root);
  ~SnapshotBuilder();
  SnapshotBuilder(const SnapshotBuilder&) = delete;
  SnapshotBuilder& operator=(const SnapshotBuilder&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path path(std::string_view abs) const;

  void add_pci_device(const PciDeviceSpec& spec);
  // Writes bytes into a BAR's resourceN file.
  void write_bar(const Bdf& bdf, int bar, std::uint64_t offset, std::span<const std::uint8_t> data);
  // Writes bytes at a physical address: into the BAR file that holds it, else into dev/mem.
  void write_phys(std::uint64_t phys, std::span<const std::uint8_t> data);
  void write_phys64(std::uint64_t phys, std::uint64_t value);
  void write_phys32(std::uint64_t phys, std::uint32_t value);
  // Overwrites bytes of a device's sysfs config file.
  void write_config(const Bdf& bdf, unsigned offset, std::span<const std::uint8_t> data);

  // CPU `cpu` in package `package`, die `die`, NUMA node `node` (-1: no node directory).
  void add_cpu(int cpu, int package, int die, int node);
  // Many CPUs at once: the machine-wide lists (online, node cpulists, cpuinfo) are written once.
  void add_cpus(std::span<const CpuPlacement> cpus);
  void set_cpuinfo(const CpuInfo& info);
  // dev/cpu/<cpu>/msr, one 8-byte slot per MSR (see MsrDevice).
  void set_msr(int cpu, std::uint32_t msr, std::uint64_t value);
  void add_acpi_table(const std::string& signature, std::span<const std::uint8_t> bytes);
  void write_text(std::string_view abs_path, std::string_view text);
  // A relative symbolic link at link_abs to target_abs, both inside the root.
  void make_link(std::string_view link_abs, std::string_view target_abs);
  // A marker saying the tree is synthetic (pmu-discover prints it on every run).
  void set_synthetic_label(std::string_view label);

 private:
  void rewrite_topology_files();
  void write_cpu_list(const std::filesystem::path& file, const std::vector<int>& cpus);
  void write_file(const std::filesystem::path& file, std::string_view data);
  std::filesystem::path device_dir(const Bdf& bdf) const;

  std::filesystem::path root_;
  std::unique_ptr<ConfinedRoot> files_;
  std::map<Bdf, std::vector<BarSpec>> bars_;
  std::map<int, std::tuple<int, int, int>> cpus_;  // cpu -> package, die, node
  std::optional<CpuInfo> cpuinfo_;
};

// The marker file name under the root; its text is the label.
inline constexpr std::string_view kSyntheticMarker = "PMUKIT_SYNTHETIC_MACHINE";
// The label of a synthetic snapshot, or nullopt for a real capture or a live machine (read inside
// the machine root: a marker that is a link to a file elsewhere is not followed out).
std::optional<std::string> synthetic_label(const Machine& machine);

}  // namespace pmukit::snapshot
