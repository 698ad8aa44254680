// pmukit -- CPU identity and topology readers.
#include "pmukit/discovery/system.h"

#include <set>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit::discovery {

namespace {

void set_number(std::string_view value, unsigned& out, bool& known) {
  auto v = parse_u64(value);
  known = v && *v <= 0xffffffffu;
  out = known ? static_cast<unsigned>(*v) : 0;
}

bool has_word(std::string_view list, std::string_view word) {
  for (std::string_view w : split(list, ' '))
    if (w == word) return true;
  return false;
}

}  // namespace

std::optional<CpuIdentity> read_cpu_identity(const Machine& machine) {
  auto text = machine.files().read_text(machine.param("cpuinfo.path"), kProcTextLimit);
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
      set_number(value, id.family, id.has_family);
    else if (key == "model")
      set_number(value, id.model, id.has_model);
    else if (key == "stepping")
      id.stepping = static_cast<unsigned>(parse_u64(value).value_or(0));
    else if (key == "model name")
      id.model_name = value;
    else if (key == "flags")
      id.hypervisor = has_word(value, "hypervisor");
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
  const auto& files = machine.files();
  auto cpu_dir = machine.param("cpu.path");
  std::vector<int> online;
  if (auto list = files.read_line(cpu_dir / "online")) {
    auto cpus = parse_cpu_list(*list);
    if (!cpus && !list->empty())
      throw Error(fmt::format("{}: '{}' is not a list of at most {} CPUs", (cpu_dir / "online").string(),
                              list->substr(0, 64), limits::kCpus));
    online = cpus.value_or(std::vector<int>{});
  }
  for (int cpu : online) {
    auto topo = cpu_dir / fmt::format("cpu{}", cpu) / "topology";
    CpuPlace p;
    p.package = static_cast<int>(files.read_int(topo / "physical_package_id").value_or(-1));
    p.die = static_cast<int>(files.read_int(topo / "die_id").value_or(0));
    t.cpus[cpu] = p;
  }
  auto node_dir = machine.param("node.path");
  for (const auto& entry : files.list(node_dir, limits::kDirEntries).value_or(std::vector<DirEntry>{})) {
    const std::string& name = entry.name;
    if (!name.starts_with("node")) continue;
    auto node = parse_u64(std::string_view(name).substr(4));
    if (!node) continue;
    if (*node >= limits::kNumaNodes || t.node_cpus.size() >= limits::kNumaNodes)
      throw Error(fmt::format("{}/{}: more than {} NUMA nodes (Linux MAX_NUMNODES)", node_dir.string(), name,
                              limits::kNumaNodes));
    auto list = files.read_line(node_dir / name / "cpulist");
    auto cpus = list ? parse_cpu_list(*list) : std::nullopt;
    t.node_cpus[static_cast<int>(*node)] = cpus.value_or(std::vector<int>{});
  }
  return t;
}

}  // namespace pmukit::discovery
