// Benchmark: full discovery of the bundled GNR 2-socket machine (six discovery tables, 250 units),
// with the number of mmap() calls it makes (one per table).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "pmukit/access/machine.h"
#include "pmukit/access/register_window.h"
#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "scratch_dir.h"

namespace {

std::string machine(const char* name) {
  std::string dir = pmukit::bench::scratch_dir(name);
  pmukit::families::build_bundled(name, dir + "/m");
  return dir + "/m";
}

void BM_DiscoverGnr2s(benchmark::State& state) {
  static const std::string root = machine("gnr-2s");
  std::size_t units = 0, tables = 0;
  std::uint64_t mmaps = 0;
  for (auto _ : state) {
    pmukit::Machine m(pmukit::MachineOptions{root});
    auto before = pmukit::RegisterWindow::mmap_calls();
    auto r = pmukit::families::discover(m);
    mmaps = pmukit::RegisterWindow::mmap_calls() - before;
    units = r.inventory.units.size();
    tables = r.inventory.intel_tables.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["units"] = static_cast<double>(units);
  state.counters["tables"] = static_cast<double>(tables);
  state.counters["mmap_calls"] = static_cast<double>(mmaps);
}
BENCHMARK(BM_DiscoverGnr2s)->Unit(benchmark::kMillisecond);

}  // namespace
