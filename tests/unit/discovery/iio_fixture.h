// pmukit tests -- hand-built Intel IIO config spaces: register devices with dwords written at the
// offsets PCM and Linux read, root ports with bus ranges, endpoints and accelerators; and the
// mapping of such a machine (PCI scan, topology, IIO stacks, every device attributed).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/system.h"
#include "pmukit/families/intel/iio_devices.h"
#include "pmukit/families/registry.h"
#include "pmukit/pci/device.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/test_support.h"

namespace pmukit::test {

using json = nlohmann::json;

// An Intel function with config dwords `regs` (offset -> value) written over its header.
inline json reg_device(const std::string& bdf, const std::string& device, std::map<unsigned, std::uint32_t> regs,
                       int node = -1) {
  json writes = json::array();
  for (const auto& [at, v] : regs) writes.push_back({{"at", at}, {"u32", v}});
  return {{"bdf", bdf},
          {"id", "8086:" + device},
          {"class", "0x088000"},
          {"numa_node", node},
          {"caps", json::array({{{"at", "0x40"}, {"pcie", "rciep"}}})},
          {"config_writes", writes}};
}

inline json root_port(const std::string& bdf, const std::string& id, int secondary, int subordinate) {
  int bus = std::stoi(bdf.substr(5, 2), nullptr, 16);
  return {{"bdf", bdf},
          {"id", id},
          {"class", "0x060400"},
          {"header_type", 1},
          {"bus_numbers", json::array({bus, secondary, subordinate})},
          {"caps", json::array({{{"at", "0x40"}, {"pcie", "root_port"}}})}};
}

inline json endpoint(const std::string& bdf, const std::string& id, const std::string& cls = "0x010802",
                     const std::string& type = "endpoint") {
  return {{"bdf", bdf}, {"id", id}, {"class", cls}, {"caps", json::array({{{"at", "0x40"}, {"pcie", type}}})}};
}

// An Intel machine of `model` with `sockets` sockets (one die each, NUMA node = socket).
inline json iio_machine(int model, int sockets, json devices) {
  return {{"name", "iio-test"},
          {"cpuinfo", {{"vendor", "GenuineIntel"}, {"family", 6}, {"model", model}}},
          {"topology", {{"sockets", sockets}, {"cpus_per_die", 2}}},
          {"pci_devices", std::move(devices)}};
}

struct IioMapped {
  TempDir dir;
  std::unique_ptr<Machine> machine;
  std::vector<pci::Device> devices;
  discovery::Topology topo;
  discovery::IioTopology t;
  std::uint64_t reads_after_mapping = 0;

  // Builds the machine; `edit` may add files (Linux die files) before it is read.
  explicit IioMapped(const json& spec, const std::function<void(const std::filesystem::path&)>& edit = nullptr) {
    families::build_from_spec(spec, dir.path() / "m");
    if (edit) edit(dir.path() / "m");
    machine = std::make_unique<Machine>(MachineOptions{dir.path() / "m"});
    devices = pci::scan(*machine);
    topo = discovery::read_topology(*machine);
    const auto* scheme = discovery::iio_scheme_for(discovery::read_cpu_identity(*machine));
    if (!scheme) throw std::runtime_error("no IIO scheme for this model");
    t = discovery::read_iio_topology(*machine, devices, topo, *scheme);
  }
  discovery::IioDeviceMap map(const std::string& bdf) const {
    for (const auto& d : devices)
      if (d.bdf.str() == bdf) return discovery::map_iio_device(d, devices, t, nullptr);
    throw std::runtime_error(bdf + ": no such device in the test machine");
  }
  const discovery::IioStack* stack(int socket, unsigned entry) const {
    for (const auto& s : t.stacks)
      if (s.socket == socket && s.entry == entry) return &s;
    return nullptr;
  }
  bool warned(const std::string& needle) const {
    for (const auto& w : t.warnings)
      if (w.find(needle) != std::string::npos) return true;
    return false;
  }
  std::string warnings() const {
    std::string s;
    for (const auto& w : t.warnings) s += w + "\n";
    return s;
  }
};

// Linux's view of one IIO PMU on one die (/sys/devices/uncore_iio_<pmu>/die<die> = "segment:bus"),
// linked from the event_source bus as the kernel does.
inline void kernel_die_file(const std::filesystem::path& root, unsigned pmu, int die, const std::string& value) {
  auto dir = root / "sys/devices" / ("uncore_iio_" + std::to_string(pmu));
  std::filesystem::create_directories(dir);
  std::FILE* f = std::fopen((dir / ("die" + std::to_string(die))).c_str(), "w");
  std::fputs((value + "\n").c_str(), f);
  std::fclose(f);
  auto link = root / "sys/bus/event_source/devices" / ("uncore_iio_" + std::to_string(pmu));
  std::filesystem::create_directories(link.parent_path());
  std::error_code ec;
  if (!std::filesystem::exists(link, ec))
    std::filesystem::create_symlink(std::filesystem::path("../../../devices") / ("uncore_iio_" + std::to_string(pmu)),
                                    link);
}

}  // namespace pmukit::test
