// pmukit -- the machine spec's "amd_uncore" section (docs/snapshot-format.md):
//   {"generation": "zen4", "cpus_per_ccx": 8, "max_extended_leaf": "0x80000028",
//    "ext_perfmon": {"num_df_pmc": 16, "num_umc_pmc": 48, "active_umcs": "0xfff"},
//    "kernel_pmus": false}
// CPUs of a socket are numbered consecutively (the core "topology" section), so CCX k of the
// machine holds CPUs k * cpus_per_ccx onwards; its L3 id is k. ext_perfmon is CPUID 0x80000022
// (Linux union cpuid_0x80000022_ebx; ECX the active-UMC mask), given only for PerfMonV2 parts.
#include "amd_spec.h"

#include <bit>

#include <fmt/format.h>

#include "pmukit/access/cpuid.h"
#include "pmukit/families/amd/amd_regs.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/file.h"

namespace pmukit::snapshot::spec {

namespace {

using namespace regs::amd;

struct AmdSpec {
  unsigned cpus_per_ccx = 1;
  std::uint32_t max_leaf = 0x80000021;
  std::optional<CpuidRegs> ext;  // CPUID 0x80000022
  std::string generation;        // for the kernel PMUs' formats
};

AmdSpec parse(const json& s, const std::string& where) {
  AmdSpec a;
  a.cpus_per_ccx = static_cast<unsigned>(num_or_in(s, "cpus_per_ccx", 1, 256, where));
  if (a.cpus_per_ccx == 0) throw SpecError(key_path(where, "cpus_per_ccx") + ": must be at least 1");
  a.max_leaf = static_cast<std::uint32_t>(num_or_in(s, "max_extended_leaf", 0x80000021, 0xffffffff, where));
  a.generation = str_or(s, "generation", "", where);
  if (const json* e = opt(s, "ext_perfmon", where)) {
    const std::string ew = key_path(where, "ext_perfmon");
    CpuidRegs r;
    r.ebx = static_cast<std::uint32_t>(Cpuid80000022Ebx::NumDfPmc::put(num_or_in(*e, "num_df_pmc", 4, 63, ew)).raw |
                                       Cpuid80000022Ebx::NumUmcPmc::put(num_or_in(*e, "num_umc_pmc", 0, 63, ew)).raw);
    r.ecx = static_cast<std::uint32_t>(num_or_in(*e, "active_umcs", 0, 0xffffffff, ew));
    if (r.ecx && umc_counters(r.ebx) % std::popcount(r.ecx))
      throw SpecError(ew + ": num_umc_pmc must be a multiple of the active UMCs");
    a.ext = r;
    if (a.max_leaf < kCpuidExtPerfmon) a.max_leaf = kCpuidExtPerfmon;
  }
  return a;
}

void write_cache(Context& ctx, int cpu, unsigned ccx, const std::vector<int>& sharing) {
  const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index3", cpu);
  ctx.builder.write_text(dir + "/level", "3\n");
  ctx.builder.write_text(dir + "/type", "Unified\n");
  ctx.builder.write_text(dir + "/id", fmt::format("{}\n", ccx));
  ctx.builder.write_text(dir + "/shared_cpu_list", format_cpu_list(sharing) + "\n");
}

void write_cpuid(Context& ctx, int cpu, const AmdSpec& a) {
  std::string text = cpuid_line(kCpuidMaxExtended, 0, CpuidRegs{a.max_leaf, 0, 0, 0});
  if (a.ext) text += cpuid_line(kCpuidExtPerfmon, 0, *a.ext);
  ctx.builder.write_text(fmt::format("/dev/cpu/{}/cpuid", cpu), text);
}

void zero_msrs(Context& ctx, int cpu, std::uint32_t base, unsigned counters) {
  for (unsigned i = 0; i < 2 * counters; ++i) ctx.builder.set_msr(cpu, base + i, 0);
}

// A kernel perf PMU as Linux uncore.c registers it: type, cpumask and the kind's format files.
void add_perf_pmu(Context& ctx, const std::string& name, const std::string& kind, const std::vector<int>& cpus) {
  const std::string dir = "/sys/devices/" + name;
  ctx.builder.write_text(dir + "/type", fmt::format("{}\n", next_pmu_type(ctx)));
  ctx.builder.write_text(dir + "/cpumask", format_cpu_list(cpus) + "\n");
  if (const auto* k = platform::Database::builtin().pmu_kind(kind))
    for (const auto& [term, bits] : k->formats) ctx.builder.write_text(dir + "/format/" + term, bits + "\n");
  link(ctx, "/sys/bus/event_source/devices/" + name, dir);
}

}  // namespace

void write_amd_uncore(const json& section, Context& ctx) {
  const AmdSpec a = parse(section, "amd_uncore");
  std::map<int, std::vector<int>> socket_cpus;
  for (const auto& [cpu, package] : ctx.cpu_package) socket_cpus[package].push_back(cpu);
  std::vector<int> l3_readers, socket_readers;
  for (const auto& [package, cpus] : socket_cpus) {
    socket_readers.push_back(cpus.front());
    for (std::size_t first = 0; first < cpus.size(); first += a.cpus_per_ccx) {
      std::vector<int> ccx(cpus.begin() + first, cpus.begin() + std::min(cpus.size(), first + a.cpus_per_ccx));
      const unsigned id = static_cast<unsigned>(ccx.front()) / a.cpus_per_ccx;
      for (int cpu : ccx) write_cache(ctx, cpu, id, ccx);
      l3_readers.push_back(ccx.front());
      zero_msrs(ctx, ccx.front(), kL3PerfCtl, kL3Counters);
    }
    for (int cpu : cpus) write_cpuid(ctx, cpu, a);
    const unsigned df = a.ext ? df_counters(a.ext->ebx) : kDfCountersV1;
    zero_msrs(ctx, cpus.front(), kDfPerfCtl, df);
    if (a.ext) zero_msrs(ctx, cpus.front(), kUmcPerfCtl, umc_counters(a.ext->ebx));
  }
  if (!flag_or(section, "kernel_pmus", false, "amd_uncore")) return;
  if (a.generation.empty()) throw SpecError("amd_uncore.kernel_pmus: needs amd_uncore.generation for the formats");
  add_perf_pmu(ctx, "amd_l3", "amd_l3_" + a.generation, l3_readers);
  add_perf_pmu(ctx, "amd_df", "amd_df_" + a.generation, socket_readers);
  if (!a.ext) return;
  const int umcs = std::popcount(a.ext->ecx) * static_cast<int>(socket_readers.size());
  for (int n = 0; n < umcs; ++n)
    add_perf_pmu(ctx, fmt::format("amd_umc_{}", n), "amd_umc_" + a.generation,
                 {socket_readers[static_cast<std::size_t>(n / std::popcount(a.ext->ecx))]});
}

}  // namespace pmukit::snapshot::spec
