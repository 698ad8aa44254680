// pmukit -- registered kernel PMUs and their parent devices.
#include "pmukit/discovery/kernel_pmus.h"

#include <filesystem>

#include "pmukit/access/machine.h"
#include "pmukit/util/limits.h"

namespace pmukit::discovery {

KernelPmus read_kernel_pmus(const Machine& machine) {
  KernelPmus k;
  const auto& files = machine.files();
  auto dir = machine.param("events.path");
  auto entries = files.list(dir, limits::kDirEntries);
  if (!entries) return k;
  k.present = true;
  for (const auto& entry : *entries) {
    const std::string& name = entry.name;
    std::string parent;
    // Only the link's text is read (a name), never where it leads.
    std::filesystem::path target(files.read_link(dir / name).value_or(""));
    if (target.has_parent_path()) parent = target.parent_path().filename().string();
    // Top-level PMUs live in /sys/devices/<name>: their parent is "devices", not a device.
    if (parent == "devices") parent.clear();
    k.parent[name] = parent;
    if (!parent.empty()) k.by_parent[parent] = name;
  }
  return k;
}

}  // namespace pmukit::discovery
