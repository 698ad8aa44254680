// pmukit -- hints for refused hardware access.
#include "pmukit/access/privilege.h"

#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"

namespace pmukit {

std::string lockdown_mode(const Machine& machine) {
  // "none [integrity] confidentiality": the bracketed word is the active mode.
  std::optional<std::string> state;
  try {
    state = machine.files().read_line(machine.param("lockdown.path"));
  } catch (const Error&) {
    return "";  // a hint is not worth an error of its own
  }
  if (!state) return "";
  auto open = state->find('['), close = state->find(']');
  if (open == std::string::npos || close == std::string::npos || close <= open + 1) return "";
  return state->substr(open + 1, close - open - 1);
}

std::string access_hint(const Machine& machine, HardwareResource what, int err) {
  static const char* kNames[] = {"/dev/mem", "PCI BAR mmap", "MSR access", "PCI config-space writes"};
  const char* name = kNames[static_cast<int>(what)];
  if (err == ENOENT) {
    switch (what) {
    case HardwareResource::DevMem:
      return " (the kernel has no /dev/mem: built without CONFIG_DEVMEM)";
    case HardwareResource::BarResource:
      return " (the kernel exposes no such BAR file)";
    case HardwareResource::Msr:
      return " (load the msr driver: modprobe msr)";
    case HardwareResource::ConfigSpace:
      return "";
    }
  }
  if (err != EPERM && err != EACCES) return "";
  // A snapshot's device files are files: their mode says who may open them (EACCES); EPERM is what
  // the kernel's refusals give (lockdown, STRICT_DEVMEM: below).
  if (!machine.is_live() && err == EACCES)
    return fmt::format(" (the snapshot's file does not let uid {} open it: run as the user who made the snapshot, "
                       "or as root)",
                       ::geteuid());
  if (::geteuid() != 0 && machine.is_live())
    return fmt::format(" ({} needs root with CAP_SYS_RAWIO: run as root, or use --backend perf)", name);
  std::string mode = lockdown_mode(machine);
  if (!mode.empty() && mode != "none")
    return fmt::format(" (kernel lockdown is [{}]: it forbids {}; use --backend perf, or boot without Secure Boot "
                       "lockdown)",
                       mode, name);
  switch (what) {
  case HardwareResource::DevMem:
    return " (CONFIG_STRICT_DEVMEM/IO_STRICT_DEVMEM refuses this range because a driver claimed it: boot with "
           "iomem=relaxed, or use --backend perf; kernel lockdown under Secure Boot also refuses /dev/mem)";
  case HardwareResource::Msr:
    return " (kernel lockdown or msr.allow_writes=off refuses MSR writes: use --backend perf)";
  default:
    return fmt::format(" (the kernel refused {}: under Secure Boot lockdown it does; use --backend perf)", name);
  }
}

}  // namespace pmukit
