// pmukit -- the CPU facts AMD uncore discovery needs (amd_cpu_facts.h).
#include "amd_cpu_facts.h"

#include <algorithm>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/families/amd/amd_regs.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/file.h"

namespace pmukit::discovery {

namespace {

constexpr std::size_t kCpuinfoBytes = 64u << 20;

// The first "flags" line of /proc/cpuinfo: every CPU of a socket lists the same.
AmdCpuFlags read_flags(const Machine& machine) {
  AmdCpuFlags flags;
  auto text = machine.files().read_text(machine.param("cpuinfo.path"), kCpuinfoBytes);
  if (!text) return flags;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with("flags")) continue;
    std::istringstream words(line.substr(line.find(':') == std::string::npos ? line.size() : line.find(':') + 1));
    std::string flag;
    while (words >> flag) {
      flags.llc |= flag == "perfctr_llc";
      flags.nb |= flag == "perfctr_nb";
      flags.perfmon_v2 |= flag == "perfmon_v2";
      flags.topoext |= flag == "topoext";
    }
    flags.read = true;
    break;
  }
  return flags;
}

// Online CPUs grouped by the L3 they share (cache/index3, whose level must read 3).
std::vector<AmdL3Group> read_l3_groups(const MachineFacts& facts, Inventory& inv) {
  std::map<std::pair<int, int>, AmdL3Group> groups;  // (package, id)
  const auto cpu_dir = facts.machine.param("cpu.path");
  std::vector<int> without;
  for (const auto& [cpu, place] : facts.topology.cpus) {
    const auto dir = cpu_dir / fmt::format("cpu{}", cpu) / "cache" / "index3";
    auto level = facts.machine.files().read_line(dir / "level");
    auto id = facts.machine.files().read_line(dir / "id");
    const std::int64_t n = id ? parse_int_line(*id).value_or(-1) : -1;
    if (!level || *level != "3" || n < 0 || n > 0xffff) {
      without.push_back(cpu);
      continue;
    }
    auto& g = groups[{place.package, static_cast<int>(n)}];
    g.id = static_cast<int>(n), g.package = place.package;
    g.cpus.push_back(cpu);
  }
  if (!without.empty())
    inv.warnings.push_back(fmt::format("AMD L3: {} has no readable L3 (cache/index3 with level 3 and an id) for CPU{} "
                                       "{}: their L3 units are not known",
                                       cpu_dir.string(), without.size() == 1 ? "" : "s", format_cpu_list(without)));
  std::vector<AmdL3Group> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.cpus.front() < b.cpus.front(); });
  return out;
}

// CPUID 0x80000022 on the socket's first CPU, when the CPU's highest extended leaf reaches it.
void read_ext_perfmon(const Machine& machine, AmdSocketFacts& s) {
  const int cpu = s.cpus.front();
  auto max = read_cpuid(machine, cpu, regs::amd::kCpuidMaxExtended);
  if (!max.regs) {
    s.cpuid_why = max.why;
    return;
  }
  if (max.regs->eax < regs::amd::kCpuidExtPerfmon) {
    s.cpuid_why = fmt::format("CPU {} answers CPUID up to leaf {:#x}, below 0x80000022", cpu, max.regs->eax);
    return;
  }
  auto leaf = read_cpuid(machine, cpu, regs::amd::kCpuidExtPerfmon);
  s.ext_perfmon = leaf.regs;
  s.cpuid_why = leaf.why;
}

std::vector<AmdSocketFacts> read_sockets(const MachineFacts& facts, bool cpuid) {
  std::map<int, AmdSocketFacts> by_package;
  for (const auto& [cpu, place] : facts.topology.cpus) {
    auto& s = by_package[place.package];
    s.package = place.package;
    s.cpus.push_back(cpu);
  }
  std::vector<AmdSocketFacts> out;
  for (auto& [package, s] : by_package) {
    if (cpuid) read_ext_perfmon(facts.machine, s);
    out.push_back(std::move(s));
  }
  return out;
}

// What the kernel would not find either, said once: the flags a guest's CPU hides, the CPUID leaf.
void warn_hidden(const MachineFacts& facts, const AmdCpuFacts& cpus, Inventory& inv) {
  const std::string part = fmt::format("{} (family {:#x} model {:#04x}, {})", facts.cpu_model->description,
                                       facts.cpu->family, facts.cpu->model, cpus.generation);
  const auto cpuinfo = facts.machine.param("cpuinfo.path").string();
  if (!cpus.flags.read) {
    inv.warnings.push_back(
        fmt::format("{}: {} has no flags line: which uncore counters the CPU has is unknown", part, cpuinfo));
    return;
  }
  if (!cpus.flags.topoext) {
    inv.warnings.push_back(fmt::format("{}: {} lacks topoext: Linux's amd_uncore registers no PMU without it, and "
                                       "neither does pmukit",
                                       part, cpuinfo));
    return;
  }
  if (!cpus.flags.llc && !cpus.flags.nb)
    inv.warnings.push_back(fmt::format(
        "{}: {} lists neither perfctr_llc nor perfctr_nb: the CPU shows no L3 or Data Fabric counters{} (Linux "
        "uncore.c registers amd_l3 and amd_df only with these flags)",
        part, cpuinfo, facts.cpu->hypervisor ? ", as a hypervisor's guest CPU usually does" : ""));
  const bool has_umc_kind = platform::Database::builtin().pmu_kind("amd_umc_" + cpus.generation) != nullptr;
  if (!cpus.flags.perfmon_v2 && has_umc_kind)
    inv.warnings.push_back(
        fmt::format("{}: {} lacks perfmon_v2: no UMC (memory channel) counters without PerfMonV2", part, cpuinfo));
  for (const auto& s : cpus.sockets)
    if (cpus.flags.perfmon_v2 && !s.ext_perfmon)
      inv.warnings.push_back(
          fmt::format("{}: socket {}: CPUID 0x80000022 not read: {}: no UMC units", part, s.package, s.cpuid_why));
}

}  // namespace

AmdCpuFacts read_amd_cpu_facts(const MachineFacts& facts, Inventory& inv) {
  AmdCpuFacts cpus;
  cpus.generation = facts.cpu_model->amd_uncore;
  cpus.cpu_family = facts.cpu->family;  // discover_amd_uncore asks only with a CPU identity
  cpus.flags = read_flags(facts.machine);
  if (cpus.flags.llc) cpus.l3_groups = read_l3_groups(facts, inv);
  cpus.sockets = read_sockets(facts, cpus.flags.perfmon_v2);
  warn_hidden(facts, cpus, inv);
  return cpus;
}

}  // namespace pmukit::discovery
