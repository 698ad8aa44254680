// pmukit -- machine root and the named-path table.
#include "pmukit/access/machine.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/access/msr.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/util/error.h"

namespace pmukit {

namespace {
// The only table of absolute paths in pmukit. Each default lives under the machine root.
constexpr ParamInfo kParams[] = {
    {"sysfs.path", "/sys/bus/pci", "PCI sysfs tree (libpci sysfs method)"},
    {"devmem.path", "/dev/mem", "physical memory device, the last resort for MMIO windows"},
    {"msr.path", "/dev/cpu", "MSR devices: <path>/<cpu>/msr"},
    {"acpi.path", "/sys/firmware/acpi/tables", "ACPI tables (APMT)"},
    {"acpidev.path", "/sys/bus/acpi/devices", "ACPI devices (Tegra410 NVDA20xx PMU blocks, Arm CMN meshes)"},
    {"devicetree.path", "/sys/firmware/devicetree/base", "the devicetree (arm,cmn-* nodes)"},
    {"platformdev.path", "/sys/bus/platform/devices", "platform devices (the PMU a driver registered below one)"},
    {"cpu.path", "/sys/devices/system/cpu", "CPU topology (physical_package_id, die_id)"},
    {"node.path", "/sys/devices/system/node", "NUMA nodes (cpulist)"},
    {"cpuinfo.path", "/proc/cpuinfo", "CPU vendor, family and model"},
    {"events.path", "/sys/bus/event_source/devices", "kernel perf PMUs (type, format/, events/)"},
    {"kernel.path", "/proc/sys/kernel", "perf_event_paranoid and friends"},
    {"lockdown.path", "/sys/kernel/security/lockdown", "kernel lockdown state"},
    {"hypervisor.path", "/sys/hypervisor", "the hypervisor a guest runs under (type), where the kernel says"},
    {"iomem.path", "/proc/iomem", "physical address map (claimed ranges)"},
    {"lock.path", "/run/pmukit.lock", "the machine lock, held while a tool takes its units' locks"},
    {"units.path", "/run/pmukit",
     "one lock per PMU unit (UNIT.lock) and the original register values of each running tool (UNIT.journal)"},
    {"sim.path", "/run/pmukit-sim", "pmu-sim's clock and control files"},
};
}  // namespace

std::span<const ParamInfo> param_table() {
  return kParams;
}

Machine::Machine(MachineOptions opts) : opts_(std::move(opts)) {
  for (const auto& [name, value] : opts_.overrides) {
    bool known = false;
    for (const auto& p : kParams) known = known || p.name == name;
    if (!known && name != "dump.name") throw UsageError(fmt::format("-O {}: unknown parameter", name));
  }
  if (auto it = opts_.overrides.find("dump.name"); it != opts_.overrides.end()) opts_.pci_dump = it->second;
}

Machine::~Machine() = default;

bool Machine::is_live() const {
  if (opts_.root == "/" || opts_.root.empty()) return true;
  if (files_) return files_->is_host();
  std::error_code ec;
  auto real = std::filesystem::canonical(opts_.root, ec);
  return !ec && real == "/";
}

const ConfinedRoot& Machine::files() const {
  if (!files_) files_ = std::make_unique<ConfinedRoot>(opts_.root.empty() ? "/" : opts_.root);
  return *files_;
}

namespace {

[[noreturn]] void refuse_register_file(const std::filesystem::path& file, std::string_view what) {
  throw Error(fmt::format("{}: is {}; in a snapshot, register files must be regular files (only the live machine "
                          "has device files, and a link could reach its hardware)",
                          file.string(), what));
}

}  // namespace

void Machine::check_register_file(const std::filesystem::path& file) const {
  if (is_live()) return;
  auto st = files().stat(file, false);
  if (!st) return;  // absent: the open reports it
  if (S_ISLNK(st->st_mode)) refuse_register_file(file, "a symbolic link");
  if (!S_ISREG(st->st_mode)) refuse_register_file(file, file_type_name(st->st_mode));
}

void Machine::check_no_links(const std::filesystem::path& file) const {
  if (is_live()) return;
  auto rel = files().below(file);
  if (!rel) return;  // an -O path the user named
  std::filesystem::path at = files().path();
  for (const auto& part : *rel) {
    at /= part;
    auto st = files().stat(at, false);
    if (!st) return;  // from here on pmukit creates the path itself
    if (S_ISLNK(st->st_mode))
      throw Error(fmt::format("{}: is a symbolic link; pmukit writes {} only through real directories of the "
                              "snapshot",
                              at.string(), file.string()));
  }
}

OpenResult Machine::open_register(const std::filesystem::path& file, bool write) const {
  const bool live = is_live();
  // O_SYNC makes /dev/mem and resourceN mappings uncached on x86 (as pciutils' physmem does).
  // Not in a snapshot: its register files are regular files, where O_SYNC would make every MSR
  // pwrite a synchronous disk write and journal commit (28 us of system time each, and waits of
  // up to 12 ms, under pmu-sim on ext4) and change nothing a mapping or the simulator sees.
  // O_NONBLOCK: a FIFO planted where a register file belongs must not hang the open.
  int flags = (write ? O_RDWR | (live ? O_SYNC : 0) : O_RDONLY) | O_NONBLOCK;
  if (!live) flags |= O_NOFOLLOW;
  auto r = files().open(file, flags);
  if (!r.fd) {
    if (r.err == ELOOP && !live) refuse_register_file(file, "a symbolic link (or its path loops)");
    if (r.err == EXDEV && !live) refuse_register_file(file, "a symbolic link that leads out of the snapshot");
    return r;
  }
  struct stat st {};
  if (::fstat(r.fd.get(), &st) != 0) return {UniqueFd(), errno};
  bool ok = S_ISREG(st.st_mode) || (live && S_ISCHR(st.st_mode));
  // A snapshot's register file on sysfs or procfs is this machine's hardware (a BAR's resourceN,
  // reached through a bind mount of /sys into the tree): refused as the live machine it is.
  struct statfs fs {};
  if (ok && !live && ::fstatfs(r.fd.get(), &fs) == 0 &&
      (fs.f_type == SYSFS_MAGIC || fs.f_type == PROC_SUPER_MAGIC || fs.f_type == DEBUGFS_MAGIC))
    refuse_register_file(file, "a file of this machine's sysfs or procfs, the live machine's hardware");
  if (!ok) {
    if (!live) refuse_register_file(file, file_type_name(st.st_mode));
    throw Error(fmt::format("{}: is {}, not a device or a sysfs file", file.string(), file_type_name(st.st_mode)));
  }
  ::fcntl(r.fd.get(), F_SETFL, ::fcntl(r.fd.get(), F_GETFL) & ~O_NONBLOCK);
  return r;
}

std::string Machine::describe() const {
  std::string s = is_live() ? "live machine" : fmt::format("snapshot {}", opts_.root.string());
  if (opts_.pci_dump) s = fmt::format("PCI dump {} ({})", opts_.pci_dump->string(), s);
  return s;
}

std::filesystem::path Machine::param(std::string_view name) const {
  if (auto it = opts_.overrides.find(name); it != opts_.overrides.end()) return it->second;
  for (const auto& p : kParams) {
    if (p.name != name) continue;
    if (is_live()) return std::filesystem::path(p.default_path);
    return opts_.root / std::filesystem::path(p.default_path).relative_path();
  }
  throw Error(fmt::format("internal: unknown machine parameter '{}'", name));
}

void Machine::set_param(std::string_view name, std::string value) {
  bool known = name == "dump.name";
  for (const auto& p : kParams) known = known || p.name == name;
  if (!known) throw UsageError(fmt::format("-O {}: unknown parameter (see -O help)", name));
  if (name == "dump.name") opts_.pci_dump = value;
  opts_.overrides.insert_or_assign(std::string(name), std::move(value));
  pci_.reset();
  memory_.reset();
}

PciAccess& Machine::pci() {
  if (!pci_) pci_ = std::make_unique<PciAccess>(*this);
  return *pci_;
}

PhysicalMemory& Machine::memory() {
  if (!memory_) memory_ = std::make_unique<PhysicalMemory>(*this);
  return *memory_;
}

MsrDevice& Machine::msr(int cpu) {
  auto it = msrs_.find(cpu);
  if (it == msrs_.end())
    it = msrs_.emplace(cpu, std::make_unique<MsrDevice>(*this, param("msr.path") / std::to_string(cpu) / "msr", cpu))
             .first;
  return *it->second;
}

bool Machine::has_msr_device(int cpu) const {
  return files().stat(param("msr.path") / std::to_string(cpu) / "msr", false).has_value();
}

}  // namespace pmukit
