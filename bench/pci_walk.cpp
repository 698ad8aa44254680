// Benchmark: the PCI scan and capability walk of a 320-device synthetic machine, with the number
// of config-space reads per device (pmukit reads only the dwords its walk needs).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/families/registry.h"
#include "pmukit/pci/device.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/file.h"
#include "scratch_dir.h"

namespace {

std::string big_machine() {
  static std::string root = [] {
    std::string dir = pmukit::bench::scratch_dir("pci");
    std::string cmd = std::string("python3 ") + PMUKIT_BENCH_DIR "/big_machine.py 320 > " + dir + "/spec.json";
    if (std::system(cmd.c_str()) != 0) std::abort();
    pmukit::families::build_from_spec(nlohmann::json::parse(pmukit::read_file(dir + "/spec.json")), dir + "/m");
    return dir + "/m";
  }();
  return root;
}

void BM_ScanAndWalk(benchmark::State& state) {
  std::string root = big_machine();
  std::uint64_t reads = 0, devices = 0;
  for (auto _ : state) {
    pmukit::Machine m(pmukit::MachineOptions{root});
    auto devs = pmukit::pci::scan(m);
    benchmark::DoNotOptimize(devs.data());
    reads = m.pci().total_config_reads();
    devices = devs.size();
  }
  state.counters["devices"] = static_cast<double>(devices);
  state.counters["config_reads_per_device"] = static_cast<double>(reads) / static_cast<double>(devices);
  state.counters["devices_per_s"] =
      benchmark::Counter(static_cast<double>(devices), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ScanAndWalk)->Unit(benchmark::kMillisecond);

}  // namespace
