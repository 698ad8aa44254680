// pmukit -- why a machine shows no uncore PMU (access_report.h).
#include "pmukit/discovery/access_report.h"

#include <unistd.h>

#include <optional>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/privilege.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::discovery {

namespace {

// A small number as people write CPU families: 6, 0x1a.
std::string family_text(unsigned v) {
  return v < 10 ? std::to_string(v) : fmt::format("{:#x}", v);
}

std::optional<std::string> virtual_machine(const Machine& machine, const std::optional<CpuIdentity>& cpu) {
  if (cpu && cpu->hypervisor)
    return "virtual machine: the CPU flags in /proc/cpuinfo include \"hypervisor\"; a hypervisor gives its guests no "
           "uncore PMU";
  std::optional<std::string> type;
  try {
    type = machine.files().read_line(machine.param("hypervisor.path") / "type");
  } catch (const Error&) {
    return std::nullopt;
  }
  if (type && !type->empty())
    return fmt::format("virtual machine: {}/type says \"{}\"; a hypervisor gives its guests no uncore PMU",
                       machine.param("hypervisor.path").string(), *type);
  return std::nullopt;
}

std::optional<std::string> no_devmem(const Machine& machine) {
  if (machine.files().stat(machine.param("devmem.path"), false)) return std::nullopt;
  return "no /dev/mem: this kernel (or container) has no physical memory device, so no MMIO PMU block can be mapped";
}

std::optional<std::string> lockdown(const Machine& machine) {
  std::string mode = lockdown_mode(machine);
  if (mode.empty() || mode == "none") return std::nullopt;
  return fmt::format("kernel lockdown [{}]: it forbids /dev/mem, PCI BAR mmap and MSR access", mode);
}

std::optional<std::string> no_msr(const Machine& machine, const DiscoveryResult& r) {
  if (!r.cpu || r.cpu->vendor.empty()) return std::nullopt;  // x86 only: Arm has no MSR device
  int cpu = r.topology.cpus.empty() ? 0 : r.topology.cpus.begin()->first;
  if (machine.has_msr_device(cpu)) return std::nullopt;
  return fmt::format("no MSR device: {}/{}/msr is absent (modprobe msr; a VM or container may have none)",
                     machine.param("msr.path").string(), cpu);
}

// The live process's uid; a snapshot does not record who read it, so there it is not a cause.
std::optional<std::string> not_root(const Machine& machine) {
  if (!machine.is_live()) return std::nullopt;
  auto uid = ::geteuid();
  if (uid == 0) return std::nullopt;
  return fmt::format("not root (uid {}): /dev/mem, BAR mmap, MSRs and config space past 64 bytes need root", uid);
}

std::optional<std::string> unknown_cpu(const DiscoveryResult& r) {
  if (!r.cpu || !r.cpu->x86_identity() || !r.inventory.platform.empty()) return std::nullopt;
  std::string name = cpu_name(*r.cpu);
  if (!r.cpu->model_name.empty()) name += fmt::format(" ({})", r.cpu->model_name);
  return fmt::format("CPU not in pmukit's database: {}", name);
}

}  // namespace

std::string cpu_name(const CpuIdentity& cpu) {
  if (!cpu.x86_identity()) return "";
  return fmt::format("{} family {} model {:#04x}", cpu.vendor, family_text(cpu.family), cpu.model);
}

std::vector<std::string> no_access_causes(const Machine& machine, const DiscoveryResult& result) {
  std::vector<std::string> out;
  for (auto cause : {virtual_machine(machine, result.cpu), no_devmem(machine), lockdown(machine),
                     no_msr(machine, result), not_root(machine), unknown_cpu(result)})
    if (cause) out.push_back(std::move(*cause));
  return out;
}

}  // namespace pmukit::discovery
