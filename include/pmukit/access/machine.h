// pmukit -- the machine root: the one place that turns "/sys/..." into a path, and hands out
// every kind of hardware access (config space, physical memory windows, MSRs).
//
// Live runs use root "/". A snapshot root DIR makes every read of /X go to DIR/X, so a captured or
// synthetic machine runs through exactly the code a real one does. Like pciutils' -O sysfs.path=,
// every path is a named parameter with a default (param_table()), and each can be overridden.
//
// Every file under a snapshot root is opened inside it (files(): util/confined_root.h): links
// and ".." cannot lead out, reads are bounded and never block, and register files must be
// regular files there. A root that is this machine's "/" (also `--snapshot /`) is the live machine.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "pmukit/util/confined_root.h"

namespace pmukit {

class PciAccess;
class PhysicalMemory;
class MsrDevice;

struct ParamInfo {
  std::string_view name;          // "sysfs.path"
  std::string_view default_path;  // "/sys/bus/pci", placed under the machine root
  std::string_view help;
};
// Every path pmukit touches, with its default. `pmu-discover -O help` prints this table.
std::span<const ParamInfo> param_table();

struct MachineOptions {
  std::filesystem::path root = "/";
  std::map<std::string, std::string, std::less<>> overrides;  // -O name=value, used as given
  std::optional<std::filesystem::path> pci_dump;              // lspci -xxxx file (libpci dump method)
  // With a snapshot root: let perf_event_open count on this machine's kernel PMUs, found by the
  // snapshot's PMU type numbers (pmu-raw --live-perf; how tests check the perf path on a
  // snapshot). Off, the perf backend refuses to count a snapshot: its PMUs are not this kernel's.
  bool live_perf = false;
};

class Machine {
 public:
  explicit Machine(MachineOptions opts = {});
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  static Machine live() { return Machine(MachineOptions{}); }

  const std::filesystem::path& root() const { return opts_.root; }
  // The root is this machine's "/" (the default, or a --snapshot that resolves to it).
  bool is_live() const;
  // "live machine", "snapshot /tmp/spr", "PCI dump file.txt (snapshot /tmp/x)".
  std::string describe() const;
  const MachineOptions& options() const { return opts_; }

  // The resolved path of a named parameter; throws Error for an unknown name.
  std::filesystem::path param(std::string_view name) const;
  // Applies -O name=value; throws UsageError for an unknown name.
  void set_param(std::string_view name, std::string value);

  // Every file under the root, confined to it (opened on first use; throws Error when the root
  // cannot be opened).
  const ConfinedRoot& files() const;
  // Opens a register file (dev/mem, dev/cpu/N/msr, resourceN, config) for mmap or pread. In a
  // snapshot it must be a regular file, not a link (a link could reach this machine's hardware);
  // live, a device or a sysfs file. The errno of a failed open is returned for the caller's
  // hint; a file of the wrong kind throws Error naming it.
  OpenResult open_register(const std::filesystem::path& file, bool write) const;
  // Throws Error naming `file` when it is not a file a snapshot may hold as a register file.
  void check_register_file(const std::filesystem::path& file) const;
  // For a file pmukit creates or maps read-write by name under a snapshot root (pmu-sim's clock
  // page): throws Error when a component of `file` that exists below the root is a symbolic
  // link, which could send the write outside the snapshot.
  void check_no_links(const std::filesystem::path& file) const;

  PciAccess& pci();
  PhysicalMemory& memory();
  // /dev/cpu/N/msr, opened on first use and kept; throws Error naming the file and the reason.
  MsrDevice& msr(int cpu);
  bool has_msr_device(int cpu) const;

 private:
  MachineOptions opts_;
  mutable std::unique_ptr<ConfinedRoot> files_;
  std::unique_ptr<PciAccess> pci_;
  std::unique_ptr<PhysicalMemory> memory_;
  std::map<int, std::unique_ptr<MsrDevice>> msrs_;
};

}  // namespace pmukit
