// pmu-rcmap -- which NVIDIA PCIe PMU sees a PCIe device, and the filter that counts it.
//
// With no BDF it prints one line per device carrying the Tegra410 RC-mapping DVSEC, in exactly
// the format of the example script in Linux nvidia-tegra410-pmu.rst (a drop-in replacement that
// reads each DVSEC once instead of running lspci and five setpci per device), followed by Grace
// root ports, whose mapping is derived from the domain number and labelled so.
#include <algorithm>

#include <fmt/format.h>

#include "common/bundled.h"
#include "common/tool.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/discovery/kernel_pmus.h"
#include "pmukit/discovery/rcmap.h"
#include "pmukit/util/error.h"

using namespace pmukit;
using discovery::RootPortMap;

namespace {

// lspci prints domains for every device once any device has a non-zero domain.
std::string slot(const Bdf& b, bool domains) {
  return domains ? b.str() : fmt::format("{:02x}:{:02x}.{}", b.bus, b.dev, b.fn);
}

void print_seed_lines(const std::vector<RootPortMap>& maps, bool domains) {
  for (const auto& m : maps) {
    if (m.scheme != "tegra410") continue;
    fmt::print("{}: Bus={:02x}, Segment={:02x}, RP={:02x}, RC={:02x}, Socket={:02x}\n", slot(m.device, domains), m.bus,
               m.segment, m.rp, m.rc, m.socket);
  }
  for (const auto& m : maps) {
    if (m.scheme != "grace") continue;
    fmt::print("{}: Socket={:02x}, RP={:02x} (Grace: derived from the domain number, not read from "
               "hardware)\n",
               slot(m.device, domains), m.socket, m.rp);
  }
}

nlohmann::ordered_json device_json(const discovery::DeviceRcMap& r, const discovery::KernelPmus& kernel) {
  nlohmann::ordered_json j{{"device", r.device.str()},
                           {"kind", r.kind},
                           {"root_port", r.root_port ? nlohmann::ordered_json(r.root_port->str()) : nullptr}};
  if (!r.map) {
    j["error"] = r.error;
    return j;
  }
  j["mapping"] = discovery::to_json(*r.map);
  j["filters"] = nlohmann::ordered_json::array();
  for (const auto& f : r.filters)
    j["filters"].push_back({{"pmu", f.pmu},
                            {"terms", f.terms},
                            {"scope", f.scope},
                            {"example", f.example},
                            {"registered", kernel.present ? nlohmann::ordered_json(kernel.has(f.pmu)) : nullptr}});
  return j;
}

void print_device(const discovery::DeviceRcMap& r, const pci::Device& d, const discovery::KernelPmus& kernel) {
  fmt::print("{} ({} {:04x}:{:04x})", r.device.str(), r.kind, d.vendor_id, d.device_id);
  if (r.root_port && *r.root_port != r.device) fmt::print(" below root port {}", r.root_port->str());
  fmt::print("\n");
  const auto& m = *r.map;
  if (m.scheme == "tegra410")
    fmt::print("  RP {}, RC {}, socket {}  (from {} of {}: Bus={:02x}, Segment={:02x})\n", m.rp, m.rc, m.socket,
               m.source, m.device.str(), m.bus, m.segment);
  else
    fmt::print("  root port {}, socket {}  ({})\n", m.rp, m.socket, m.source);
  std::size_t w_pmu = 0, w_terms = 0;
  for (const auto& f : r.filters) w_pmu = std::max(w_pmu, f.pmu.size()), w_terms = std::max(w_terms, f.terms.size());
  for (const auto& f : r.filters) {
    std::string reg = kernel.present && !kernel.has(f.pmu) ? " [not registered with perf]" : "";
    fmt::print("  {:<{}}  {:<{}}  {}{}\n", f.pmu, w_pmu, f.terms, w_terms, f.scope, reg);
  }
  if (!r.filters.empty() && !r.filters.front().example.empty())
    fmt::print("  e.g. perf stat -a -e {}\n", r.filters.front().example);
}

constexpr const char* kAbout =
    "pmu-rcmap: map PCIe devices to the NVIDIA PCIe PMU (socket, RC, root port) that sees their "
    "traffic.\n\n"
    "Tegra410: read from the RC-mapping DVSEC (vendor 10de, ID 4) of each root port. Grace: "
    "derived from the\n"
    "PCI domain (socket = domain >> 4, root port = domain & 0xf, as the Grace guide's example "
    "shows).\n\n"
    "Examples:\n"
    "  pmu-rcmap                        one line per root port, as the nvidia-tegra410-pmu.rst "
    "script prints\n"
    "  pmu-rcmap 0005:41:00.0           its root port, RP#, RC#, socket#, PMUs and the filter "
    "that counts it\n"
    "  pmu-rcmap --json                 for scripts (docs/json.md)\n"
    "  pmu-rcmap -A linux-sysfs -O sysfs.path=DIR   the seed script's way of reading a snapshot";

struct Options {
  tools::MachineArgs machine;
  std::vector<std::string> bdfs;
  bool json = false;
  std::string machine_name, method;
};

void add_options(CLI::App& app, Options& o) {
  tools::add_machine_options(app, o.machine);
  app.add_option("BDF", o.bdfs, "Devices to map ([domain:]bus:dev.fn), endpoints or root ports")->type_name("BDF");
  app.add_flag("--json", o.json, "Print JSON (schema pmukit.rcmap/1) instead of text");
  app.add_option("--machine", o.machine_name, "Run on a bundled synthetic machine (pmu-discover --list-machines)")
      ->type_name("NAME")
      ->excludes(app.get_option("--snapshot"));
  app.add_option("-A", o.method,
                 "PCI access method, as lspci -A: linux-sysfs (the default) or dump (with -O dump.name=)")
      ->type_name("METHOD")
      ->check(CLI::IsMember({"linux-sysfs", "dump"}));
}

std::vector<Bdf> parse_bdfs(const std::vector<std::string>& args) {
  std::vector<Bdf> wanted;
  for (const auto& s : args) {
    auto b = Bdf::parse(s);
    if (!b) throw UsageError(fmt::format("'{}': not a PCI address ([domain:]bus:dev.fn)", s));
    wanted.push_back(*b);
  }
  return wanted;
}

// No device named: every root port's mapping.
void print_root_ports(const Machine& machine, const std::vector<discovery::RootPortMap>& maps, bool domains,
                      bool json) {
  if (!json) return print_seed_lines(maps, domains);
  nlohmann::ordered_json out{{"schema", "pmukit.rcmap/1"}, {"source", machine.describe()}};
  out["root_ports"] = nlohmann::ordered_json::array();
  for (const auto& m : maps) out["root_ports"].push_back(discovery::to_json(m));
  fmt::print("{}\n", out.dump(2));
}

// The named devices' mappings; 1 when any has none.
int print_devices(Machine& machine, const std::vector<Bdf>& wanted, const std::vector<pci::Device>& devices,
                  const std::vector<discovery::RootPortMap>& maps, bool json) {
  auto kernel = discovery::read_kernel_pmus(machine);
  int status = 0;
  nlohmann::ordered_json out{{"schema", "pmukit.rcmap/1"}, {"source", machine.describe()}};
  out["devices"] = nlohmann::ordered_json::array();
  bool first = true;
  for (const auto& b : wanted) {
    auto dev = std::find_if(devices.begin(), devices.end(), [&](const pci::Device& d) { return d.bdf == b; });
    if (dev == devices.end()) {
      fmt::print(stderr, "pmu-rcmap: error: {}: no such PCI device\n", b.str());
      if (json) out["devices"].push_back({{"device", b.str()}, {"error", "no such PCI device"}});
      status = 1;
      continue;
    }
    auto r = discovery::map_device(*dev, maps);
    if (json) {
      out["devices"].push_back(device_json(r, kernel));
    } else if (r.map) {
      if (!first) fmt::print("\n");
      print_device(r, *dev, kernel);
      first = false;
    }
    if (!r.map) {
      fmt::print(stderr, "pmu-rcmap: error: {}: {}\n", b.str(), r.error);
      status = 1;
    }
  }
  if (json) fmt::print("{}\n", out.dump(2));
  return status;
}

int run(Options& o) {
  auto wanted = parse_bdfs(o.bdfs);
  std::unique_ptr<tools::BundledSnapshot> bundled;
  if (!o.machine_name.empty()) {
    bundled = std::make_unique<tools::BundledSnapshot>(o.machine_name);
    o.machine.snapshot = bundled->root().string();
  }
  auto machine = tools::make_machine(o.machine);
  if (o.method == "dump" && !machine->options().pci_dump) throw UsageError("-A dump needs -O dump.name=FILE");
  auto devices = pci::scan(*machine);
  std::vector<std::string> warnings;
  auto maps = discovery::map_root_ports(*machine, devices, warnings);
  for (const auto& w : warnings) tools::warn(w);
  bool domains = false;
  for (const auto& d : devices) domains = domains || d.bdf.domain != 0;
  if (wanted.empty()) {
    print_root_ports(*machine, maps, domains, o.json);
    return 0;
  }
  return print_devices(*machine, wanted, devices, maps, o.json);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kAbout, "pmu-rcmap"};
  Options o;
  add_options(app, o);
  app.set_version_flag("-V,--version", "pmu-rcmap (pmukit) 0.1.0");
  return tools::run_tool("pmu-rcmap", app, argc, argv, [&] { return run(o); });
}
