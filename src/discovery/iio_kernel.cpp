// pmukit -- the IIO mapping Linux exposes (/sys/devices/uncore_iio_<n>/die<x>, "segment:bus"), as
// a cross-check of the config-space route and as the route itself when config space is unreadable.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "iio_internal.h"
#include "pmukit/access/machine.h"
#include "pmukit/platform/soc_data.h"
#include "pmukit/util/file.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit::discovery {

namespace {

std::vector<std::pair<int, int>> dies(const Topology& topo) {
  std::set<std::pair<int, int>> s;
  for (const auto& [cpu, p] : topo.cpus)
    if (p.package >= 0) s.insert({p.package, p.die});
  return {s.begin(), s.end()};
}

struct KernelStack {
  std::uint32_t segment = 0;
  std::uint8_t bus = 0;
  std::string file;  // "uncore_iio_2/die0"
};

// Linux skx_iio_mapping_show prints "%04x:%02x".
std::optional<KernelStack> parse_die_file(const Machine& machine, const std::filesystem::path& f, std::string name) {
  auto line = machine.files().read_line(f);
  if (!line) return std::nullopt;
  auto parts = split(*line, ':');
  if (parts.size() != 2) return std::nullopt;
  auto seg = parse_hex(parts[0]);
  auto bus = parse_hex(parts[1]);
  if (!seg || !bus || *bus > 0xff) return std::nullopt;
  return KernelStack{static_cast<std::uint32_t>(*seg), static_cast<std::uint8_t>(*bus), std::move(name)};
}

// (die, pmu) -> what Linux shows, for every PMU the table lists; `mapped` gets the PMUs whose
// directory has die files at all (a kernel that does the mapping).
std::map<std::pair<int, unsigned>, KernelStack> read_kernel(const Machine& machine, const IioTopology& out,
                                                            std::set<unsigned>& mapped) {
  std::map<std::pair<int, unsigned>, KernelStack> k;
  auto events = machine.param("events.path");
  for (const auto& e : out.table->stacks) {
    if (!e.pmu) continue;
    const std::string pmu = iio_pmu_name(*out.scheme, *e.pmu);
    // Through the machine root, like every other file: confined to it, and seen by --capture.
    for (const auto& f : machine.files().list(events / pmu, limits::kDirEntries).value_or(std::vector<DirEntry>{})) {
      const std::string& name = f.name;
      auto die = name.starts_with("die") ? parse_u64(std::string_view(name).substr(3)) : std::nullopt;
      if (!die) continue;
      mapped.insert(*e.pmu);
      if (auto ks = parse_die_file(machine, events / pmu / name, pmu + "/" + name))
        k[{static_cast<int>(*die), *e.pmu}] = *ks;
    }
  }
  return k;
}

void stacks_from_kernel(const Topology& topo, IioTopology& out,
                        const std::map<std::pair<int, unsigned>, KernelStack>& kernel) {
  out.route = "Linux uncore_iio_<n>/die<x> files";
  for (const auto& [key, ks] : kernel) {
    IioStack st;
    st.die = key.first;
    st.socket = iio_socket_of_die(topo, key.first);
    if (st.socket < 0) st.socket = key.first;
    st.domain = ks.segment;
    st.root_bus = ks.bus;
    st.table_entry = out.table->by_pmu(key.second);
    st.entry = st.table_entry->entry;
    st.pmu = key.second;
    name_pmus(*out.scheme, st);
    st.name = st.table_entry->name;
    st.source = "Linux " + ks.file;
    st.kernel = fmt::format("{} = {:04x}:{:02x}", ks.file, ks.segment, ks.bus);
    out.stacks.push_back(std::move(st));
  }
  std::sort(out.stacks.begin(), out.stacks.end(), [](const IioStack& a, const IioStack& b) {
    return std::tie(a.socket, a.entry, a.domain, a.root_bus) < std::tie(b.socket, b.entry, b.domain, b.root_bus);
  });
  // One warning for what non-root readers always meet, instead of one per register.
  auto unreadable = std::erase_if(out.warnings, [](const std::string& w) {
    return w.find("unreadable (config space needs root") != std::string::npos;
  });
  out.warnings.push_back(fmt::format("{} IIO mapping registers are beyond the readable config space (not root?): "
                                     "IIO stacks taken from Linux uncore_iio_<n>/die<x> files",
                                     unreadable));
}

}  // namespace

int iio_logical_die(const Topology& topo, int socket) {
  auto d = dies(topo);
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i].first == socket) return static_cast<int>(i);
  return socket;
}

int iio_socket_of_die(const Topology& topo, int die) {
  auto d = dies(topo);
  return die >= 0 && static_cast<std::size_t>(die) < d.size() ? d[die].first : -1;
}

int iio_socket_fallback(const Topology& topo, const pci::Device& locator, int order,
                        std::vector<std::string>& warnings) {
  if (auto s = locator.numa_node >= 0 ? topo.socket_of_node(locator.numa_node) : std::nullopt) {
    warnings.push_back(
        fmt::format("{}: socket {} taken from its NUMA node {}", locator.bdf.str(), *s, locator.numa_node));
    return *s;
  }
  warnings.push_back(
      fmt::format("{}: socket {} taken from the order found (NUMA node unknown)", locator.bdf.str(), order));
  return order;
}

void cross_check_kernel(Machine& machine, const Topology& topo, IioTopology& out, bool use_kernel) {
  if (!out.table) return;
  std::set<unsigned> mapped;
  auto kernel = read_kernel(machine, out, mapped);
  if (out.stacks.empty()) {
    if (use_kernel && !kernel.empty()) stacks_from_kernel(topo, out, kernel);
    return;
  }
  std::set<std::pair<int, unsigned>> seen;
  const auto zero_ok = out.scheme->zero_bus_pmu;
  for (auto& st : out.stacks) {
    if (!st.pmu || !mapped.count(*st.pmu)) continue;
    const std::string& pmu = st.pmu_name;
    seen.insert({st.die, *st.pmu});
    auto it = kernel.find({st.die, *st.pmu});
    if (it == kernel.end()) {
      // Linux hides die<x> of a stack whose root bus is 0 unless that PMU may sit on bus 0.
      if (st.root_bus != 0 || st.pmu == zero_ok)
        out.warnings.push_back(fmt::format("Linux has no {}/die{}, but {} gives stack {} root bus {:04x}:{:02x}", pmu,
                                           st.die, st.source, st.name, st.domain, st.root_bus));
      continue;
    }
    const auto& ks = it->second;
    st.kernel = fmt::format("{} = {:04x}:{:02x}", ks.file, ks.segment, ks.bus);
    if (ks.segment != st.domain || ks.bus != st.root_bus)
      out.warnings.push_back(fmt::format("Linux {} says {:04x}:{:02x}, but {} gives {:04x}:{:02x} for stack {}: "
                                         "using config space",
                                         ks.file, ks.segment, ks.bus, st.source, st.domain, st.root_bus, st.name));
  }
  for (const auto& [key, ks] : kernel)
    if (!seen.count(key))
      out.warnings.push_back(fmt::format("Linux {} = {:04x}:{:02x}, but config space shows no stack with that PMU on "
                                         "die {}",
                                         ks.file, ks.segment, ks.bus, key.first));
}

}  // namespace pmukit::discovery
