// pmu-rcmap -- which PCIe PMU sees a PCIe device, and the filter that counts it.
//
// NVIDIA (Tegra410, Grace): with no BDF it prints one line per device carrying the Tegra410
// RC-mapping DVSEC, in exactly the format of the example script in Linux nvidia-tegra410-pmu.rst
// (a drop-in replacement that reads each DVSEC once instead of running lspci and five setpci per
// device), followed by Grace root ports, whose mapping is derived from the domain number.
// Intel Xeon (SKX, ICX/SNR, SPR/EMR, GNR/SRF): the IIO stacks, each device's stack, IIO PMU, part
// and the ch_mask/fc_mask terms that count it (pmukit/families/intel/iio_devices.h).
#include <functional>

#include <fmt/format.h>

#include "common/bundled.h"
#include "common/tool.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/coresight/rcmap_json.h"
#include "pmukit/families/intel/iio_json.h"
#include "pmukit/families/registry.h"
#include "pmukit/util/error.h"
#include "views.h"

using namespace pmukit;
using namespace pmukit::tools::rcmap;
using ojson = nlohmann::ordered_json;

namespace {

struct Options {
  std::vector<Bdf> wanted;
  bool json = false;
  bool tree = false;
};

const pci::Device* find(const std::vector<pci::Device>& devices, const Bdf& b) {
  for (const auto& d : devices)
    if (d.bdf == b) return &d;
  return nullptr;
}

int no_such_device(const Bdf& b, bool json, ojson& out) {
  fmt::print(stderr, "pmu-rcmap: error: {}: no such PCI device\n", b.str());
  if (json) out["devices"].push_back({{"device", b.str()}, {"error", "no such PCI device"}});
  return 1;
}

// One named device's answer: its JSON, how to print its text, or why it has none.
struct Answer {
  ojson json;
  std::function<void()> print;
  std::string error;
};

// The named devices' answers: JSON into out["devices"], or text blocks separated by blank lines;
// 1 when a device does not exist or has no answer.
template <class F>
int answer_devices(const Options& o, const std::vector<pci::Device>& devices, ojson& out, F&& answer) {
  int status = 0;
  bool first = true;
  for (const auto& b : o.wanted) {
    const pci::Device* dev = find(devices, b);
    if (!dev) {
      status = no_such_device(b, o.json, out);
      continue;
    }
    Answer a = answer(*dev);
    if (o.json) {
      out["devices"].push_back(std::move(a.json));
    } else if (a.print) {
      if (!first) fmt::print("\n");
      a.print();
      first = false;
    }
    if (!a.error.empty()) {
      fmt::print(stderr, "pmu-rcmap: error: {}: {}\n", b.str(), a.error);
      status = 1;
    }
  }
  if (o.json) fmt::print("{}\n", out.dump(2));
  return status;
}

int run_nvidia(Machine& machine, const Options& o) {
  auto devices = pci::scan(machine);
  std::vector<std::string> warnings;
  auto maps = discovery::map_root_ports(machine, devices, warnings);
  for (const auto& w : warnings) tools::warn(w);
  if (o.tree) {
    print_tree(devices, machine, {nullptr, [&](const pci::Device& d) { return nvidia_note(d, maps); }});
    return 0;
  }
  bool domains = false;
  for (const auto& d : devices) domains = domains || d.bdf.domain != 0;
  ojson out{{"schema", "pmukit.rcmap/1"}, {"source", machine.describe()}};
  if (o.wanted.empty()) {
    // Nothing to list is not an empty answer: say what was looked for, and what to give instead.
    if (!o.json && maps.empty())
      throw UsageError(fmt::format("{}: no root port with an NVIDIA RC mapping (Tegra410 DVSEC, Grace domain) and no "
                                   "Intel IIO stacks: nothing to list; name a device (BDF), or a machine with "
                                   "--snapshot DIR or --machine NAME (pmu-rcmap --help)",
                                   machine.describe()));
    if (!o.json) return print_guide_lines(maps, domains), 0;
    out["root_ports"] = ojson::array();
    for (const auto& m : maps) out["root_ports"].push_back(discovery::to_json(m));
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  auto kernel = discovery::read_kernel_pmus(machine);
  out["devices"] = ojson::array();
  return answer_devices(o, devices, out, [&](const pci::Device& dev) {
    auto r = discovery::map_device(dev, maps);
    Answer a;
    if (o.json) a.json = discovery::to_json(r, kernel);
    if (r.map) a.print = [r, &dev, &kernel] { print_nvidia_device(r, dev, kernel); };
    if (!r.map) a.error = r.error;
    return a;
  });
}

int run_intel(Machine& machine, const platform::IioMapScheme& scheme, const Options& o) {
  auto found = families::discover(machine);
  const auto& devices = found.devices;
  auto topo = discovery::read_iio_topology(machine, devices, found.topology, scheme);
  for (const auto& w : topo.warnings) tools::warn(w);
  const auto maps = discovery::map_iio_devices(devices, topo, &found.inventory);  // maps[i]: devices[i]'s
  auto map_of = [&](const pci::Device& d) -> const discovery::IioDeviceMap& {
    return maps.at(static_cast<std::size_t>(&d - devices.data()));
  };
  if (o.tree) {
    print_tree(devices, machine,
               {[&](std::uint32_t dom, std::uint8_t bus) { return iio_bus_note(topo, maps, dom, bus); },
                [&](const pci::Device& d) { return iio_device_note(map_of(d)); }});
    return 0;
  }
  auto kernel = discovery::read_kernel_pmus(machine);
  ojson out{{"schema", "pmukit.rcmap/1"}, {"source", machine.describe()}, {"iio", discovery::to_json(topo)}};
  out["devices"] = ojson::array();
  if (o.wanted.empty()) {
    if (!o.json) return print_iio_stacks(topo, maps), 0;
    for (const auto& d : devices)
      out["devices"].push_back(discovery::to_json(map_of(d), topo, device_name(machine, d), kernel));
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  return answer_devices(o, devices, out, [&](const pci::Device& dev) {
    const auto& r = map_of(dev);
    Answer a;
    if (o.json) a.json = discovery::to_json(r, topo, device_name(machine, dev), kernel);
    if (r.stack) a.print = [&r, &topo, &machine, &dev, &kernel] { print_iio_device(r, topo, machine, dev, kernel); };
    a.error = r.error;
    return a;
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pmu-rcmap: map PCIe devices to the PCIe PMU that sees their traffic, and the filter that counts "
               "them.\n\n"
               "NVIDIA Tegra410: read from the RC-mapping DVSEC (vendor 10de, ID 4) of each root port. Grace: "
               "derived from the\n"
               "PCI domain (socket = domain >> 4, root port = domain & 0xf, as the Grace guide's example shows).\n"
               "Intel Xeon (Skylake-SP to Granite Rapids): the IIO stack of each device, read from the registers "
               "that publish\n"
               "stack root buses (UBOX CPUBUSNO, SAD_CONTROL_CFG, MSM CPUBUSNO), its uncore_iio_<n> PMU and part "
               "(ch_mask bit).\n\n"
               "Examples:\n"
               "  pmu-rcmap                        NVIDIA: one line per root port, as the nvidia-tegra410-pmu.rst "
               "script prints;\n"
               "                                   Intel: one line per IIO stack\n"
               "  pmu-rcmap 0005:41:00.0           its socket, RC/stack, PMUs and the filter that counts it\n"
               "  pmu-rcmap --tree                 every device as lspci -tv draws it, annotated with its PMU\n"
               "  pmu-rcmap --json                 for scripts (docs/json.md)\n"
               "  pmu-rcmap -A linux-sysfs -O sysfs.path=DIR   the way the Tegra410 guide's script reads a snapshot",
               "pmu-rcmap"};
  tools::MachineArgs machine_args;
  tools::add_machine_options(app, machine_args);
  std::vector<std::string> bdfs;
  Options o;
  std::string machine_name, method;
  app.add_option("BDF", bdfs, "Devices to map ([domain:]bus:dev.fn), endpoints or root ports")->type_name("BDF");
  app.add_flag("--json", o.json, "Print JSON (schema pmukit.rcmap/1) instead of text");
  app.add_flag("--tree", o.tree, "Print the PCI tree like lspci -tv, annotated with stacks, PMUs and filters")
      ->excludes(app.get_option("--json"))
      ->excludes(app.get_option("BDF"));
  app.add_option("--machine", machine_name, "Run on a bundled synthetic machine (pmu-discover --list-machines)")
      ->type_name("NAME")
      ->excludes(app.get_option("--snapshot"));
  app.add_option("-A", method, "PCI access method, as lspci -A: linux-sysfs (the default) or dump (with -O dump.name=)")
      ->type_name("METHOD")
      ->check(CLI::IsMember({"linux-sysfs", "dump"}));
  app.set_version_flag("-V,--version", "pmu-rcmap (pmukit) 0.1.0");

  return tools::run_tool("pmu-rcmap", app, argc, argv, [&] {
    for (const auto& s : bdfs) {
      auto b = Bdf::parse(s);
      if (!b) throw UsageError(fmt::format("'{}': not a PCI address ([domain:]bus:dev.fn)", s));
      o.wanted.push_back(*b);
    }
    std::unique_ptr<tools::BundledSnapshot> bundled;
    if (!machine_name.empty()) {
      bundled = std::make_unique<tools::BundledSnapshot>(machine_name);
      machine_args.snapshot = bundled->root().string();
    }
    auto machine = tools::make_machine(machine_args);
    if (method == "dump" && !machine->options().pci_dump) throw UsageError("-A dump needs -O dump.name=FILE");
    if (const auto* scheme = discovery::iio_scheme_for(discovery::read_cpu_identity(*machine)))
      return run_intel(*machine, *scheme, o);
    return run_nvidia(*machine, o);
  });
}
