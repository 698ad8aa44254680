// Benchmark: the software cost of one sample of N counters (N = 8 .. 4096) through a direct
// session, in ns per counter, beside the floor: one 64-bit load per counter (Intel MMIO counters)
// or hi-lo-hi's three 32-bit loads (CoreSight counters without atomic 64-bit access).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "pmukit/access/machine.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/coresight/coresight_unit.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/session.h"
#include "pmukit/snapshot/builder.h"
#include "scratch_dir.h"

namespace {

using namespace pmukit;

constexpr std::uint64_t kBase = 0x1'0000'0000;  // 4 GiB: MMIO boxes, 16 KiB apart
constexpr unsigned kBoxes = 1024;               // 4 counters each: N up to 4096

struct Rig {
  std::string root;
  std::unique_ptr<Machine> machine;
  std::vector<discovery::PmuUnit> units;
};

// N/4 Intel-style MMIO boxes (4 x 48-bit counters) or N/4 CoreSight blocks (4 x 64-bit counters
// read hi-lo-hi), built straight into a snapshot.
Rig& rig(bool coresight) {
  static Rig rigs[2];
  Rig& r = rigs[coresight];
  if (r.machine) return r;
  std::string dir = bench::scratch_dir("sample");
  r.root = dir;
  snapshot::SnapshotBuilder b(dir);
  for (unsigned i = 0; i < kBoxes; ++i) {
    std::uint64_t base = kBase + 0x4000ull * i;
    discovery::PmuUnit u;
    u.socket = 0;
    u.num_counters = 4;
    if (coresight) {
      u.name = "bench_cs_" + std::to_string(i);
      u.pmu_kind = "bench";
      u.counter_width = 64;
      discovery::CoreSightUnit cs;
      cs.base0 = base;
      cs.base1 = base + 0x1000;
      using Pmcfgr = regs::coresight::Pmcfgr;
      cs.pmcfgr = Pmcfgr::N::put(3) | Pmcfgr::Size::put(63);  // 4 counters, 64-bit, no cycle counter
      b.write_phys32(base + Pmcfgr::offset, static_cast<std::uint32_t>(cs.pmcfgr.raw));
      b.write_phys32(base + 0x1ffc, 0);
      u.set_detail(cs);
    } else {
      u.name = "bench_imc_" + std::to_string(i);
      u.pmu_kind = "intel_spr_imc";
      u.counter_width = 48;
      discovery::IntelUnit iu;
      iu.type = 6;
      iu.box_id = static_cast<std::uint16_t>(i);
      iu.access = discovery::RegAccess::Mmio;
      iu.box_ctl = base;
      for (unsigned c = 0; c < 4; ++c) iu.ctl.push_back(base + 0x40 + 4 * c), iu.ctr.push_back(base + 8 + 8 * c);
      b.write_phys32(base + 0x100, 0);
      u.set_detail(iu);
    }
    r.units.push_back(u);
  }
  r.machine = std::make_unique<Machine>(MachineOptions{dir});
  return r;
}

void sample(benchmark::State& state, bool coresight) {
  Rig& r = rig(coresight);
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<pmu::UnitEvents> work;
  for (std::size_t i = 0; i < n / 4; ++i) {
    std::vector<syntax::EncodedEvent> ev(4);
    for (unsigned c = 0; c < 4; ++c) ev[c].config = c + 1;
    work.push_back({&r.units[i], ev});
  }
  // No simulator runs here, so write-one-to-set bits from an earlier size stay set: force.
  pmu::SessionOptions opts;
  opts.force = true;
  pmu::DirectSession session(*r.machine, std::move(work), platform::Database::builtin(), opts);
  session.start();
  for (auto _ : state) benchmark::DoNotOptimize(session.sample());
  state.counters["s_per_counter"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The floor: the loads a sample cannot avoid, through the same windows.
void floor(benchmark::State& state, bool coresight) {
  Rig& r = rig(coresight);
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::unique_ptr<RegisterWindow>> windows;
  for (std::size_t i = 0; i < n / 4; ++i)
    windows.push_back(r.machine->memory().map(kBase + 0x4000ull * i, 0x2000, false));
  for (auto _ : state) {
    for (auto& w : windows)
      for (unsigned c = 0; c < 4; ++c)
        benchmark::DoNotOptimize(coresight ? w->read64_hilohi(0x1000 + 8 * c) : w->read64(8 + 8 * c));
  }
  state.counters["s_per_counter"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_SampleIntelMmio(benchmark::State& s) {
  sample(s, false);
}
void BM_FloorOneLoad(benchmark::State& s) {
  floor(s, false);
}
void BM_SampleCoreSightHiLoHi(benchmark::State& s) {
  sample(s, true);
}
void BM_FloorHiLoHi(benchmark::State& s) {
  floor(s, true);
}

BENCHMARK(BM_SampleIntelMmio)->RangeMultiplier(4)->Range(8, 4096);
BENCHMARK(BM_FloorOneLoad)->RangeMultiplier(4)->Range(8, 4096);
BENCHMARK(BM_SampleCoreSightHiLoHi)->RangeMultiplier(4)->Range(8, 4096);
BENCHMARK(BM_FloorHiLoHi)->RangeMultiplier(4)->Range(8, 4096);

}  // namespace
