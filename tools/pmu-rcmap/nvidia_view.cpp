// pmu-rcmap -- NVIDIA output: the Tegra410 guide's script lines, per-device filters, JSON, tree notes.
#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "views.h"

namespace pmukit::tools::rcmap {

using discovery::RootPortMap;

std::string slot(const Bdf& b, bool domains) {
  return domains ? b.str() : fmt::format("{:02x}:{:02x}.{}", b.bus, b.dev, b.fn);
}

std::string device_name(Machine& machine, const pci::Device& d) {
  return pci::vendor_device_name(machine, d.vendor_id, d.device_id);
}

void print_guide_lines(const std::vector<RootPortMap>& maps, bool domains) {
  for (const auto& m : maps) {
    if (m.scheme != "tegra410") continue;
    fmt::print("{}: Bus={:02x}, Segment={:02x}, RP={:02x}, RC={:02x}, Socket={:02x}\n", slot(m.device, domains), m.bus,
               m.segment, m.rp, m.rc, m.socket);
  }
  for (const auto& m : maps) {
    if (m.scheme != "grace") continue;
    fmt::print("{}: Socket={:02x}, RP={:02x} (Grace: derived from the domain number, not read from "
               "hardware)\n",
               slot(m.device, domains), m.socket, m.rp);
  }
}

void print_nvidia_device(const discovery::DeviceRcMap& r, const pci::Device& d, const discovery::KernelPmus& kernel) {
  fmt::print("{} ({} {:04x}:{:04x})", r.device.str(), r.kind, d.vendor_id, d.device_id);
  if (r.root_port && *r.root_port != r.device) fmt::print(" below root port {}", r.root_port->str());
  fmt::print("\n");
  const auto& m = *r.map;
  if (m.scheme == "tegra410")
    fmt::print("  RP {}, RC {}, socket {}  (from {} of {}: Bus={:02x}, Segment={:02x})\n", m.rp, m.rc, m.socket,
               m.source, m.device.str(), m.bus, m.segment);
  else
    fmt::print("  root port {}, socket {}  ({})\n", m.rp, m.socket, m.source);
  std::size_t w_pmu = 0, w_terms = 0;
  for (const auto& f : r.filters) w_pmu = std::max(w_pmu, f.pmu.size()), w_terms = std::max(w_terms, f.terms.size());
  for (const auto& f : r.filters) {
    std::string reg = kernel.present && !kernel.has(f.pmu) ? " [not registered with perf]" : "";
    fmt::print("  {:<{}}  {:<{}}  {}{}\n", f.pmu, w_pmu, f.terms, w_terms, f.scope, reg);
  }
  if (!r.filters.empty() && !r.filters.front().example.empty())
    fmt::print("  e.g. perf stat -a -e {}\n", r.filters.front().example);
}

std::string nvidia_note(const pci::Device& d, const std::vector<RootPortMap>& maps) {
  for (const auto& m : maps) {
    if (m.device != d.bdf) continue;
    auto r = discovery::map_device(d, maps);
    std::string where = m.rc >= 0 ? fmt::format("RC {} RP {} socket {}", m.rc, m.rp, m.socket)
                                  : fmt::format("root port {} socket {}", m.rp, m.socket);
    if (r.filters.empty()) return "[" + where + "]";
    return fmt::format("[{}: {} {}]", where, r.filters.front().pmu, r.filters.front().terms);
  }
  return "";
}

}  // namespace pmukit::tools::rcmap
