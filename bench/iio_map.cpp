// Benchmark: the Intel IIO mapping of a 2-socket Sapphire Rapids with 400 PCIe devices below its
// root ports (bench/iio_machine.py): stacks read from config space and every device attributed,
// with the config reads it makes; the same with full PMU discovery (what pmu-rcmap runs); and the
// reads pcm-iio's algorithm makes on the same machine (PCM pcm-iio-topology.cpp
// EagleStreamPlatformMapping: setChopValue, getRootBuses, eagleStream*StackProbe; lspci.cpp
// probe_pci), replayed through the same config-space access, one read per register, no caching.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/discovery/iio_map.h"
#include "pmukit/pci/device.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/file.h"
#include "scratch_dir.h"

namespace {

using namespace pmukit;

std::string iio_machine() {
  static std::string root = [] {
    std::string dir = bench::scratch_dir("iio");
    std::string cmd = std::string("python3 ") + PMUKIT_BENCH_DIR "/iio_machine.py 400 > " + dir + "/spec.json";
    if (std::system(cmd.c_str()) != 0) std::abort();
    snapshot::build_from_spec(nlohmann::json::parse(read_file(dir + "/spec.json")), dir + "/m");
    return dir + "/m";
  }();
  return root;
}

std::size_t map_all(Machine& m, const std::vector<pci::Device>& devices, const discovery::Topology& topo,
                    const discovery::Inventory* inv, std::uint64_t& mapping_reads) {
  const auto* scheme = discovery::iio_scheme_for(discovery::read_cpu_identity(m));
  auto t = discovery::read_iio_topology(m, devices, topo, *scheme);
  std::size_t mapped = 0;
  for (const auto& r : discovery::map_iio_devices(devices, t, inv)) mapped += !r.parts.empty();
  mapping_reads = t.config_reads;
  return mapped;
}

void BM_IioMap(benchmark::State& state) {
  std::string root = iio_machine();
  std::uint64_t reads = 0, mapping = 0, devices = 0, mapped = 0;
  for (auto _ : state) {
    Machine m(MachineOptions{root});
    auto devs = pci::scan(m);
    mapped = map_all(m, devs, discovery::read_topology(m), nullptr, mapping);
    reads = m.pci().total_config_reads();
    devices = devs.size();
  }
  state.counters["devices"] = static_cast<double>(devices);
  state.counters["mapped"] = static_cast<double>(mapped);
  state.counters["config_reads"] = static_cast<double>(reads);
  state.counters["mapping_register_reads"] = static_cast<double>(mapping);
}
BENCHMARK(BM_IioMap)->Unit(benchmark::kMillisecond);

// The mapping alone, on a machine already scanned: stacks from their registers, every device attributed.
void BM_IioMapOnly(benchmark::State& state) {
  std::string root = iio_machine();
  Machine m(MachineOptions{root});
  auto devs = pci::scan(m);
  auto topo = discovery::read_topology(m);
  std::uint64_t mapping = 0;
  std::uint64_t before = m.pci().total_config_reads();
  for (auto _ : state) benchmark::DoNotOptimize(map_all(m, devs, topo, nullptr, mapping));
  state.counters["mapping_register_reads"] = static_cast<double>(mapping);
  state.counters["config_reads_per_run"] =
      static_cast<double>(m.pci().total_config_reads() - before) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_IioMapOnly)->Unit(benchmark::kMicrosecond);

void BM_IioMapWithDiscovery(benchmark::State& state) {
  std::string root = iio_machine();
  std::uint64_t reads = 0, mapping = 0;
  for (auto _ : state) {
    Machine m(MachineOptions{root});
    auto found = discovery::discover(m);
    map_all(m, found.devices, found.topology, &found.inventory, mapping);
    reads = m.pci().total_config_reads();
  }
  state.counters["config_reads"] = static_cast<double>(reads);
  state.counters["mapping_register_reads"] = static_cast<double>(mapping);
}
BENCHMARK(BM_IioMapWithDiscovery)->Unit(benchmark::kMillisecond);

// pcm-iio's reads, replayed: every BDF it probes costs an existence check (PCM opens the config
// file); a present one costs probe_pci's reads (0x0, 0xc, then 0x18 for a bridge or 0x4, 0x34 and
// the capability chain up to the PCIe capability and its +0x10 for a type-0 header).
struct PcmReplay {
  Machine& m;
  std::string sysfs = m.param("sysfs.path").string();
  std::uint64_t opens = 0, reads = 0;
  std::uint32_t rd(const Bdf& b, unsigned off) {
    ++reads;
    return m.pci().config(b).read32(off).value_or(0xffffffffu);
  }
  struct Probe {
    bool exists = false;
    std::uint16_t device = 0;
    std::uint8_t secondary = 0, subordinate = 0;
  };
  // An existence check is an open of the function's config file (PCM: /proc/bus/pci/BB/DD.F),
  // made here on the snapshot's sysfs file so it costs what a lookup of an absent path costs.
  bool open_config(const Bdf& b) {
    ++opens;
    std::string path = sysfs + "/devices/" + b.str() + "/config";
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
    return fd >= 0;
  }
  Probe probe(const Bdf& b) {
    Probe p;
    if (!open_config(b)) return p;
    open_config(b);  // PciHandleType h(...) opens it again
    std::uint32_t id = rd(b, 0x0);
    if (id == 0xffffffffu) return p;
    p.exists = true;
    p.device = static_cast<std::uint16_t>(id >> 16);
    std::uint32_t hdr = (rd(b, 0xc) >> 16) & 0x7f;
    if (hdr == 1) {
      std::uint32_t buses = rd(b, 0x18);
      p.secondary = static_cast<std::uint8_t>(buses >> 8);
      p.subordinate = static_cast<std::uint8_t>(buses >> 16);
    } else if (hdr == 0 && (rd(b, 0x4) & 0x100000)) {
      unsigned at = rd(b, 0x34) & 0xff;
      for (int hops = 0; at >= 0x40 && hops < 48; ++hops) {  // probe_capability_pci_express
        std::uint32_t cap = rd(b, at);
        if ((cap & 0xff) == 0x10) {
          rd(b, at + 0x10);
          break;
        }
        at = (cap >> 8) & 0xff;
      }
    }
    return p;
  }
  void scan_buses(std::uint32_t domain, unsigned from, unsigned to) {
    for (unsigned b = from; b <= to && b < 256; ++b)
      for (unsigned d = 0; d < 32; ++d)
        for (unsigned f = 0; f < 8; ++f)
          probe(Bdf{domain, static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(d), static_cast<std::uint8_t>(f)});
  }
  void run() {
    // setChopValue: bus 0-255 at device 0x1e function 3 until a PCU answers, then CAPID4.
    for (unsigned b = 0; b < 256; ++b) {
      Bdf pcu{0, static_cast<std::uint8_t>(b), 0x1e, 3};
      auto p = probe(pcu);
      if (p.exists && p.device == 0x325b) {
        open_config(pcu);
        rd(pcu, 0x94);
        break;
      }
    }
    // getRootBuses: every domain until one has no MSM; devices end at the first missing function;
    // get_cpu_bus reads CPUBUSNO_VALID, eight CPUBUSNO dwords and SAD_CONTROL_CFG.
    std::vector<std::pair<Bdf, unsigned>> stacks;  // root bus, entry
    bool mapped = true;
    for (std::uint32_t domain = 0; mapped; ++domain) {
      mapped = false;
      for (unsigned b = 0; b < 256; ++b)
        for (unsigned d = 0; d < 32; ++d)
          for (unsigned f = 0; f < 8; ++f) {
            Bdf at{domain, static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(d), static_cast<std::uint8_t>(f)};
            auto p = probe(at);
            if (!p.exists) break;
            if (p.device != 0x09a6) continue;
            open_config(at);
            std::uint32_t valid = rd(at, 0x1a0);
            std::uint32_t busno[8];
            for (unsigned k = 0; k < 4; ++k) {
              busno[k] = rd(at, 0x190 + 4 * k);
              busno[k + 4] = rd(at, 0x1c0 + 4 * k);
            }
            std::optional<Bdf> first;
            for (unsigned e = 0; e < 32; ++e) {
              if (!(valid >> e & 1)) continue;
              Bdf root{domain, static_cast<std::uint8_t>(busno[e / 4] >> (e % 4 * 8)), 0, 0};
              if (!first) first = root;
              stacks.push_back({root, e});
              mapped = true;
            }
            if (first) {
              open_config(*first);
              rd(*first, 0x3f4);
            }
          }
    }
    // Stack probes (XCC): DMI probes device 0 and its (type-0) bus range; PCIe stacks root ports
    // at devices 1-8 and every function of every bus below them; accelerator stacks four buses.
    for (const auto& [rb, e] : stacks) {
      if (e == 0) {
        auto p = probe(rb);
        scan_buses(rb.domain, p.secondary, p.subordinate);
      } else if (e <= 5) {
        for (std::uint8_t slot = 1; slot < 9; ++slot) {
          auto p = probe(Bdf{rb.domain, rb.bus, slot, 0});
          if (p.exists) scan_buses(rb.domain, p.secondary, p.subordinate);
        }
      } else if (e >= 8 && e <= 11) {
        scan_buses(rb.domain, rb.bus, rb.bus + 3u);
      }
    }
  }
};

void BM_PcmIioReplay(benchmark::State& state) {
  std::string root = iio_machine();
  std::uint64_t reads = 0, opens = 0;
  for (auto _ : state) {
    Machine m(MachineOptions{root});
    PcmReplay r{m};
    r.run();
    reads = r.reads;
    opens = r.opens;
  }
  state.counters["config_reads"] = static_cast<double>(reads);
  state.counters["file_opens"] = static_cast<double>(opens);
}
BENCHMARK(BM_PcmIioReplay)->Unit(benchmark::kMillisecond);

}  // namespace
