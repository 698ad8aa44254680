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

// The L3 kind's formats say how the kernel fills in an event's thread selection: family 17h's
// kind has slicemask (config:48-51), family 19h's enallcores (config:47).
AmdUnit::L3Selection l3_selection_of(const platform::PmuKind* kind) {
  return kind && kind->formats.count("slicemask") ? AmdUnit::L3Selection::SliceAndThreadMasks
                                                  : AmdUnit::L3Selection::ThreadMaskAndEnables;
}

PmuUnit unit_of(const AmdCpuFacts& facts, AmdUnit::Kind kind, int socket, unsigned counters, AmdUnit detail) {
  static constexpr const char* kPrefix[] = {"amd_l3", "amd_df", "amd_umc"};
  const char* prefix = kPrefix[static_cast<int>(kind)];
  const std::string pmu_kind = fmt::format("{}_{}", prefix, facts.generation);
  const auto* kind_data = platform::Database::builtin().pmu_kind(pmu_kind);
  detail.kind = kind;
  detail.generation = facts.generation;
  detail.cpu_family = facts.cpu_family;
  detail.l3_selection = l3_selection_of(kind_data);
  detail.perfmon_v2 = facts.flags.perfmon_v2;
  detail.cpu = detail.cpus.empty() ? -1 : detail.cpus.front();
  PmuUnit unit;
  unit.name = kind == AmdUnit::Kind::Umc ? fmt::format("amd_umc_{}", detail.umc) : prefix;
  unit.type_name = kind == AmdUnit::Kind::L3 ? "l3" : kind == AmdUnit::Kind::Df ? "df" : "umc";
  unit.pmu_kind = pmu_kind;
  unit.socket = socket;
  unit.num_counters = counters;
  unit.counter_width = kCounterWidth;
  unit.filters = filters_of(kind_data);
  unit.set_detail(std::move(detail));
  return unit;
}

void add_l3_units(const AmdCpuFacts& facts, Inventory& inv) {
  for (const auto& group : facts.l3_groups) {
    AmdUnit l3;
    l3.cpus = group.cpus;
    l3.l3_id = group.id;
    l3.msr_base = kL3PerfCtl;
    l3.counters_from = "NUM_COUNTERS_L3 (Linux uncore.c)";
    inv.units.push_back(unit_of(facts, AmdUnit::Kind::L3, group.package, kL3Counters, std::move(l3)));
  }
}

// DF counters: CPUID 0x80000022 EBX NumDfPmc with PerfMonV2, NUM_COUNTERS_NB otherwise. With none,
// the kernel registers no DF PMU (amd_uncore_df_ctx_init), and neither does pmukit.
void add_df_unit(const AmdCpuFacts& facts, const AmdSocketFacts& socket, Inventory& inv) {
  AmdUnit df;
  df.cpus = socket.cpus;
  df.msr_base = kDfPerfCtl;
  unsigned counters = kDfCountersV1;
  df.counters_from = "NUM_COUNTERS_NB (Linux uncore.c)";
  if (facts.flags.perfmon_v2 && socket.ext_perfmon) {
    counters = df_counters(socket.ext_perfmon->ebx);
    df.counters_from = fmt::format("CPUID 0x80000022 EBX[15:10] on CPU {}", socket.cpus.front());
  }
  if (!counters) {
    inv.warnings.push_back(fmt::format("AMD Data Fabric of socket {}: {} gives 0 counters: no amd_df unit, as Linux "
                                       "registers none",
                                       socket.package, df.counters_from));
    return;
  }
  PmuUnit unit = unit_of(facts, AmdUnit::Kind::Df, socket.package, counters, std::move(df));
  if (facts.flags.perfmon_v2 && !socket.ext_perfmon)
    unit.notes.push_back(fmt::format("PerfMonV2 part, but CPUID 0x80000022 was not read ({}): the kernel's "
                                     "pre-PerfMonV2 count of 4 counters is assumed",
                                     socket.cpuid_why));
  inv.units.push_back(std::move(unit));
}

// One amd_umc_N per bit of the active-UMC mask, numbered across sockets in socket order.
void add_umc_units(const AmdCpuFacts& facts, const AmdSocketFacts& socket, int& next_umc, Inventory& inv) {
  const std::uint32_t active = socket.ext_perfmon->ecx;
  if (!active) return;
  const unsigned total = umc_counters(socket.ext_perfmon->ebx);
  const unsigned per_umc = total / static_cast<unsigned>(std::popcount(active));
  if (!per_umc) {
    inv.warnings.push_back(fmt::format("AMD UMCs of socket {}: CPUID 0x80000022 gives {} UMC counters for {} active "
                                       "UMCs (ECX {:#x}): none each, so no amd_umc unit",
                                       socket.package, total, std::popcount(active), active));
    next_umc += std::popcount(active);  // the kernel's numbering still counts them
    return;
  }
  unsigned slot = 0;
  for (int bit = 0; bit < 32; ++bit) {
    if (!(active >> bit & 1)) continue;
    AmdUnit umc;
    umc.cpus = socket.cpus;
    umc.umc = next_umc++;
    umc.umc_channel = bit;
    umc.msr_base = kUmcPerfCtl + slot++ * per_umc * 2;
    umc.counters_from = fmt::format("CPUID 0x80000022 EBX[21:16] = {} over {} active UMCs (ECX {:#x}) on CPU {}", total,
                                    std::popcount(active), active, socket.cpus.front());
    inv.units.push_back(unit_of(facts, AmdUnit::Kind::Umc, socket.package, per_umc, std::move(umc)));
  }
}

// UMC units are numbered across sockets: a socket whose leaf was not read would shift every later
// number away from the kernel's amd_umc_N, so then there are none (warn_hidden says why).
bool every_socket_has_the_leaf(const AmdCpuFacts& facts) {
  for (const auto& socket : facts.sockets)
    if (!socket.ext_perfmon) return false;
  return !facts.sockets.empty();
}

}  // namespace

unsigned discover_amd_uncore(const MachineFacts& facts, Inventory& inv) {
  if (!facts.cpu || !facts.cpu_model || facts.cpu_model->amd_uncore.empty()) return 0;
  const std::size_t before = inv.units.size();
  const AmdCpuFacts cpus = read_amd_cpu_facts(facts, inv);
  if (!cpus.flags.topoext) return 0;  // amd_uncore_init: -ENODEV without X86_FEATURE_TOPOEXT
  if (cpus.flags.llc) add_l3_units(cpus, inv);
  const bool umcs = cpus.flags.perfmon_v2 && every_socket_has_the_leaf(cpus);
  int next_umc = 0;
  for (const auto& socket : cpus.sockets) {
    if (cpus.flags.nb) add_df_unit(cpus, socket, inv);
    if (umcs) add_umc_units(cpus, socket, next_umc, inv);
  }
  return static_cast<unsigned>(inv.units.size() - before);
}

}  // namespace pmukit::discovery
