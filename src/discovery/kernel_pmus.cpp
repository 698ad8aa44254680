// pmukit -- registered kernel PMUs and their parent devices.
#include "pmukit/discovery/kernel_pmus.h"

#include <filesystem>

#include "pmukit/access/machine.h"

namespace pmukit::discovery {

KernelPmus read_kernel_pmus(const Machine& machine) {
  KernelPmus k;
  std::error_code ec;
  auto dir = machine.param("events.path");
  if (!std::filesystem::is_directory(dir, ec)) return k;
  k.present = true;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    std::string parent;
    auto target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.has_parent_path()) parent = target.parent_path().filename().string();
    // Top-level PMUs live in /sys/devices/<name>: their parent is "devices", not a device.
    if (parent == "devices") parent.clear();
    k.parent[name] = parent;
    if (!parent.empty()) k.by_parent[parent] = name;
  }
  return k;
}

}  // namespace pmukit::discovery
