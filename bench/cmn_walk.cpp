// Benchmark: walking a full-size Arm CMN-700 mesh (12 x 12 crosspoints, the largest Linux arm-cmn
// supports) with realistic devices: on every XP a two-CPU RN-F port (two external RN-SAMs) and an
// HN-F; on the edges CCGs (CCRA, CCHA, CCLA), RN-Is, HN-Ps and memory; an HN-D with the DTC at (0,0).
//
// Counters: the loads pmukit's walk makes (register_reads) against the minimum a tree walk needs
// (one node_info per node read, one child_info per root and XP, one load per child pointer), and
// against what Linux arm_cmn_discover() and Arm's cmn-tools (cmn_devmem.py CMN.__init__ with eager
// discovery) load for the same tree, counted from their code:
//   Linux: root node_info, PERIPH_ID_01, PERIPH_ID_23, por_info_global, por_info_global_1,
//          child_info (6); pass 1 per XP: pointer, child_info; pass 2 per XP: pointer, node_info,
//          DTC domain, 6 connect infos, child_info, its child pointers, each internal child's
//          node_info (it also writes 9 DTM registers per XP, not counted).
//   cmn-tools: PERIPH_ID_01, root node_info, por_info_global, PERIPH_ID_23, child_info, XP
//          pointers, por_cfgm_secure_access (6 + XPs); per XP: node_info, 4 connect infos (ports
//          0-3, read to decide what to skip), child_info, child pointers, and the node_info of every
//          child -- external ones too when every CPU is online.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "pmukit/access/machine.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/families/cmn/cmn_discovery.h"
#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/families/cmn/cmn_walk.h"
#include "pmukit/families/registry.h"
#include "pmukit/platform/database.h"
#include "pmukit/snapshot/machine_spec.h"
#include "scratch_dir.h"

namespace {

using json = nlohmann::json;
using pmukit::discovery::CmnUnit;

json mesh_spec() {
  json ports = json::array({
      {{"xps", "all"}, {"port", 0}, {"device", "RN-F_E_E"}, {"cal", true}},
      {{"xps", "all"}, {"port", 1}, {"device", "HN-F"}},
      {{"xps", {{"x", "0,11"}, {"y", "1-10"}}}, {"port", 2}, {"device", "CCG"}},
      {{"xps", {{"y", "0,11"}}}, {"port", 2}, {"device", "RN-I"}},
      {{"xps", {{"x", "1-10"}, {"y", "0,11"}}}, {"port", 3}, {"device", "SN-F"}},
      {{"xps", {{0, 0}}}, {"port", 3}, {"device", "HN-D"}},
  });
  json nodes = json::array({
      {{"type", "RN-SAM"}, {"xps", "all"}, {"port", 0}, {"dev", 0}, {"external", true}},
      {{"type", "RN-SAM"}, {"xps", "all"}, {"port", 0}, {"dev", 1}, {"external", true}},
      {{"type", "HN-F"}, {"xps", "all"}, {"port", 1}},
      {{"type", "CCRA"}, {"xps", {{"x", "0,11"}, {"y", "1-10"}}}, {"port", 2}, {"dev", 0}},
      {{"type", "CCHA"}, {"xps", {{"x", "0,11"}, {"y", "1-10"}}}, {"port", 2}, {"dev", 1}},
      {{"type", "CCLA"}, {"xps", {{"x", "0,11"}, {"y", "1-10"}}}, {"port", 2}, {"dev", 1}},
      {{"type", "RN-I"}, {"xps", {{"y", "0,11"}}}, {"port", 2}},
      {{"type", "HN-I"}, {"at", {0, 0, 3, 0}}},
      {{"type", "DVM"}, {"at", {0, 0, 3, 0}}},
      {{"type", "DTC"}, {"at", {0, 0, 3, 0}}},
  });
  return json{{"name", "cmn-12x12"},
              {"cpuinfo", {{"vendor", ""}}},
              {"topology", {{"sockets", 1}}},
              {"cmn",
               {{{"base", "0x40000000"},
                 {"part", "0x43c"},
                 {"revision", 2},
                 {"mesh", {12, 12}},
                 {"ports", ports},
                 {"nodes", nodes}}}}};
}

const std::string& machine() {
  static const std::string root = [] {
    std::string dir = pmukit::bench::scratch_dir("cmn") + "/m";
    pmukit::families::build_from_spec(mesh_spec(), dir);
    return dir;
  }();
  return root;
}

class Window : public pmukit::discovery::CmnRegion {
 public:
  explicit Window(const pmukit::RegisterWindow& w) : w_(w) {}
  std::uint64_t size() const override { return w_.size(); }
  std::uint64_t read64(std::uint64_t o) const override { return w_.read64(o); }
  std::uint32_t read32(std::uint64_t o) const override { return w_.read32(o); }

 private:
  const pmukit::RegisterWindow& w_;
};

void report(benchmark::State& state, const CmnUnit& u) {
  double xps = static_cast<double>(u.xps.size()), nodes = static_cast<double>(u.nodes.size());
  double devices = nodes - xps, external = static_cast<double>(u.skipped.size());
  double pointers = xps + devices + external;
  state.counters["xps"] = xps;
  state.counters["device_nodes"] = devices;
  state.counters["external"] = external;
  state.counters["reads"] = static_cast<double>(u.register_reads);
  state.counters["minimum"] = (1 + nodes) + (1 + xps) + pointers;
  state.counters["linux"] = 6 + xps * 2 + xps * (1 + 1 + 1 + 6 + 1) + (devices + external) + devices;
  state.counters["cmn_tools"] = 6 + xps + xps * (1 + 4 + 1) + (devices + external) + (devices + external);
}

// The walk alone over a region mapped once: what a live run spends on the mesh.
void BM_CmnWalk12x12(benchmark::State& state) {
  pmukit::Machine m(pmukit::MachineOptions{machine()});
  auto window = m.memory().map(0x40000000, 0x10000000, false);
  const auto& data = *pmukit::platform::Database::builtin().soc().cmn;
  CmnUnit last;
  for (auto _ : state) {
    CmnUnit u;
    std::vector<std::string> problems;
    walk_cmn(Window(*window), data, u, problems);
    benchmark::DoNotOptimize(u);
    last = std::move(u);
  }
  report(state, last);
}
BENCHMARK(BM_CmnWalk12x12)->Unit(benchmark::kMicrosecond);

// Whole discovery of the machine: ACPI device, /proc/iomem, one mmap, the walk.
void BM_DiscoverCmnMachine(benchmark::State& state) {
  const CmnUnit* u = nullptr;
  pmukit::discovery::DiscoveryResult r;
  std::uint64_t mmaps = 0;
  for (auto _ : state) {
    pmukit::Machine m(pmukit::MachineOptions{machine()});
    auto before = pmukit::RegisterWindow::mmap_calls();
    r = pmukit::families::discover(m);
    mmaps = pmukit::RegisterWindow::mmap_calls() - before;
    benchmark::DoNotOptimize(r);
  }
  for (const auto& unit : r.inventory.units)
    if ((u = unit.as<CmnUnit>())) break;
  if (u) report(state, *u);
  state.counters["mmap_calls"] = static_cast<double>(mmaps);
}
BENCHMARK(BM_DiscoverCmnMachine)->Unit(benchmark::kMillisecond);

}  // namespace
