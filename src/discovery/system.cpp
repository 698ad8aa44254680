// pmukit -- CPU identity and topology readers.
#include "pmukit/discovery/system.h"

#include <set>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/file.h"
#include "pmukit/util/text.h"

namespace pmukit::discovery {

std::optional<CpuIdentity> read_cpu_identity(const Machine& machine) {
  auto text = try_read_file(machine.param("cpuinfo.path"));
  if (!text) return std::nullopt;
  CpuIdentity id;
  bool any = false;
  // The first processor block is enough: servers pmukit targets are not hybrid in the uncore.
  for (std::string_view line : split(*text, '\n')) {
    if (trim(line).empty() && any) break;
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key(trim(line.substr(0, colon)));
    std::string_view value = trim(line.substr(colon + 1));
    any = true;
    if (key == "vendor_id")
      id.vendor = value;
    else if (key == "cpu family")
      id.family = static_cast<unsigned>(parse_u64(value).value_or(0));
    else if (key == "model")
      id.model = static_cast<unsigned>(parse_u64(value).value_or(0));
    else if (key == "stepping")
      id.stepping = static_cast<unsigned>(parse_u64(value).value_or(0));
    else if (key == "model name")
      id.model_name = value;
    else if (key == "CPU implementer")
      id.arm_implementer = static_cast<unsigned>(parse_u64(value).value_or(0));
    else if (key == "CPU part")
      id.arm_part = static_cast<unsigned>(parse_u64(value).value_or(0));
  }
  if (!any) return std::nullopt;
  return id;
}

std::optional<int> Topology::socket_of_node(int node) const {
  auto it = node_cpus.find(node);
  if (it == node_cpus.end() || it->second.empty()) return std::nullopt;
  auto cpu = cpus.find(it->second.front());
  if (cpu == cpus.end() || cpu->second.package < 0) return std::nullopt;
  return cpu->second.package;
}

int Topology::first_cpu(int package, int die) const {
  for (const auto& [cpu, place] : cpus)
    if (place.package == package && (die < 0 || place.die == die)) return cpu;
  return -1;
}

std::vector<int> Topology::packages() const {
  std::set<int> s;
  for (const auto& [cpu, place] : cpus)
    if (place.package >= 0) s.insert(place.package);
  return {s.begin(), s.end()};
}

Topology read_topology(const Machine& machine) {
  Topology t;
  auto cpu_dir = machine.param("cpu.path");
  std::vector<int> online;
  if (auto list = try_read_line(cpu_dir / "online"))
    if (auto cpus = parse_cpu_list(*list)) online = *cpus;
  for (int cpu : online) {
    auto topo = cpu_dir / fmt::format("cpu{}", cpu) / "topology";
    CpuPlace p;
    p.package = static_cast<int>(try_read_int(topo / "physical_package_id").value_or(-1));
    p.die = static_cast<int>(try_read_int(topo / "die_id").value_or(0));
    t.cpus[cpu] = p;
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(machine.param("node.path"), ec)) {
    auto name = entry.path().filename().string();
    if (!name.starts_with("node")) continue;
    auto node = parse_u64(std::string_view(name).substr(4));
    if (!node) continue;
    auto list = try_read_line(entry.path() / "cpulist");
    auto cpus = list ? parse_cpu_list(*list) : std::nullopt;
    t.node_cpus[static_cast<int>(*node)] = cpus.value_or(std::vector<int>{});
  }
  return t;
}

}  // namespace pmukit::discovery
