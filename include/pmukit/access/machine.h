// pmukit -- the machine root: the one place that turns "/sys/..." into a path, and hands out
// every kind of hardware access (config space, physical memory windows, MSRs).
//
// Live runs use root "/". A snapshot root DIR makes every read of /X go to DIR/X, so a captured or
// synthetic machine runs through exactly the code a real one does. Like pciutils' -O sysfs.path=,
// every path is a named parameter with a default (param_table()), and each can be overridden.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

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
};

class Machine {
 public:
  explicit Machine(MachineOptions opts = {});
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  static Machine live() { return Machine(MachineOptions{}); }

  const std::filesystem::path& root() const { return opts_.root; }
  bool is_live() const;
  // "live machine", "snapshot /tmp/spr", "PCI dump file.txt (snapshot /tmp/x)".
  std::string describe() const;
  const MachineOptions& options() const { return opts_; }

  // The resolved path of a named parameter; throws Error for an unknown name.
  std::filesystem::path param(std::string_view name) const;
  // Applies -O name=value; throws UsageError for an unknown name.
  void set_param(std::string_view name, std::string value);

  PciAccess& pci();
  PhysicalMemory& memory();
  // /dev/cpu/N/msr, opened on first use and kept; throws Error naming the file and the reason.
  MsrDevice& msr(int cpu);
  bool has_msr_device(int cpu) const;

 private:
  MachineOptions opts_;
  std::unique_ptr<PciAccess> pci_;
  std::unique_ptr<PhysicalMemory> memory_;
  std::map<int, std::unique_ptr<MsrDevice>> msrs_;
};

}  // namespace pmukit
