// pmukit -- AMD uncore discovery (amd_discovery.h), unit for unit as Linux uncore.c makes its PMUs:
// amd_uncore_llc_init (one L3 PMU context per LLC id, NUM_COUNTERS_L3 counters), amd_uncore_nb_init
// (one DF context per socket: 4 counters, or CPUID 0x80000022 EBX NumDfPmc with PerfMonV2),
// amd_uncore_umc_init (PerfMonV2 only: per socket, one amd_umc_N per bit of the active-UMC mask in
// CPUID 0x80000022 ECX, each with NumUmcPmc / popcount(mask) counters at MSR_F19H_UMC_PERF_CTL +
// slot * counters * 2, N counting across sockets). The context's CPU is the first online CPU of its
// group: the CPU pmukit reads the unit's MSRs on.
#include "pmukit/families/amd/amd_discovery.h"

#include <bit>
#include <map>

#include <fmt/format.h>

#include "amd_cpu_facts.h"
#include "pmukit/discovery/unit_helpers.h"
#include "pmukit/families/amd/amd_regs.h"
#include "pmukit/families/amd/amd_unit.h"

namespace pmukit::discovery {

namespace {

using namespace regs::amd;

PmuUnit unit_of(const AmdCpuFacts& f, AmdUnit::Kind kind, int socket, AmdUnit u) {
  static constexpr const char* kPrefix[] = {"amd_l3", "amd_df", "amd_umc"};
  const char* prefix = kPrefix[static_cast<int>(kind)];
  u.kind = kind;
  u.generation = f.generation;
  u.cpu_family = f.cpu_family;
  u.perfmon_v2 = f.flags.perfmon_v2;
  u.cpu = u.cpus.empty() ? -1 : u.cpus.front();
  PmuUnit pu;
  pu.name = kind == AmdUnit::Kind::Umc ? fmt::format("amd_umc_{}", u.umc) : prefix;
  pu.type_name = kind == AmdUnit::Kind::L3 ? "l3" : kind == AmdUnit::Kind::Df ? "df" : "umc";
  pu.pmu_kind = fmt::format("{}_{}", prefix, f.generation);
  pu.socket = socket;
  pu.counter_width = kCounterWidth;
  pu.filters = filters_of(platform::Database::builtin().pmu_kind(pu.pmu_kind));
  pu.set_detail(std::move(u));
  return pu;
}

void add_l3_units(const AmdCpuFacts& f, Inventory& inv) {
  for (const auto& g : f.l3_groups) {
    AmdUnit u;
    u.cpus = g.cpus;
    u.l3_id = g.id;
    u.msr_base = kL3PerfCtl;
    u.counters_from = "NUM_COUNTERS_L3 (Linux uncore.c)";
    PmuUnit pu = unit_of(f, AmdUnit::Kind::L3, g.package, std::move(u));
    pu.num_counters = kL3Counters;
    inv.units.push_back(std::move(pu));
  }
}

// DF counters: CPUID 0x80000022 EBX NumDfPmc with PerfMonV2, NUM_COUNTERS_NB otherwise.
void add_df_unit(const AmdCpuFacts& f, const AmdSocketFacts& s, Inventory& inv) {
  AmdUnit u;
  u.cpus = s.cpus;
  u.msr_base = kDfPerfCtl;
  unsigned counters = kDfCountersV1;
  u.counters_from = "NUM_COUNTERS_NB (Linux uncore.c)";
  if (f.flags.perfmon_v2 && s.ext_perfmon) {
    counters = static_cast<unsigned>(Cpuid80000022Ebx::NumDfPmc::get(RegValue<Cpuid80000022Ebx>{s.ext_perfmon->ebx}));
    u.counters_from = fmt::format("CPUID 0x80000022 EBX[15:10] on CPU {}", s.cpus.front());
  }
  PmuUnit pu = unit_of(f, AmdUnit::Kind::Df, s.package, std::move(u));
  pu.num_counters = counters;
  if (f.flags.perfmon_v2 && !s.ext_perfmon)
    pu.notes.push_back(fmt::format("PerfMonV2 part, but CPUID 0x80000022 was not read ({}): the kernel's pre-PerfMonV2 "
                                   "count of 4 counters is assumed",
                                   s.cpuid_why));
  inv.units.push_back(std::move(pu));
}

// One amd_umc_N per bit of the active-UMC mask, numbered across sockets in socket order.
void add_umc_units(const AmdCpuFacts& f, const AmdSocketFacts& s, int& next_umc, Inventory& inv) {
  const std::uint32_t active = s.ext_perfmon->ecx;
  if (!active) return;
  const unsigned total =
      static_cast<unsigned>(Cpuid80000022Ebx::NumUmcPmc::get(RegValue<Cpuid80000022Ebx>{s.ext_perfmon->ebx}));
  const unsigned per_umc = total / static_cast<unsigned>(std::popcount(active));
  unsigned slot = 0;
  for (int bit = 0; bit < 32; ++bit) {
    if (!(active >> bit & 1)) continue;
    AmdUnit u;
    u.cpus = s.cpus;
    u.umc = next_umc++;
    u.umc_channel = bit;
    u.msr_base = kUmcPerfCtl + slot++ * per_umc * 2;
    u.counters_from = fmt::format("CPUID 0x80000022 EBX[21:16] = {} over {} active UMCs (ECX {:#x}) on CPU {}", total,
                                  std::popcount(active), active, s.cpus.front());
    PmuUnit pu = unit_of(f, AmdUnit::Kind::Umc, s.package, std::move(u));
    pu.num_counters = per_umc;
    inv.units.push_back(std::move(pu));
  }
}

}  // namespace

unsigned discover_amd_uncore(const MachineFacts& facts, Inventory& inv) {
  if (!facts.cpu_model || facts.cpu_model->amd_uncore.empty()) return 0;
  const std::size_t before = inv.units.size();
  AmdCpuFacts f = read_amd_cpu_facts(facts, inv);
  if (f.flags.llc) add_l3_units(f, inv);
  int next_umc = 0;
  for (const auto& s : f.sockets) {
    if (f.flags.nb) add_df_unit(f, s, inv);
    if (f.flags.perfmon_v2 && s.ext_perfmon) add_umc_units(f, s, next_umc, inv);
  }
  return static_cast<unsigned>(inv.units.size() - before);
}

}  // namespace pmukit::discovery
