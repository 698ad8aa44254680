// pmu-discover -- finds every uncore PMU unit on a machine (live, snapshot or dump) and prints it.
#include <cstdio>

#include <fmt/format.h>

#include "common/tool.h"
#include "pci_view.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/pci/device.h"

using namespace pmukit;

int main(int argc, char** argv) {
  CLI::App app{
      "pmu-discover: find the uncore PMUs of a machine and the PCI devices that lead to them.\n\n"
      "Examples:\n"
      "  pmu-discover --pci                       every PCI device with its capabilities\n"
      "  pmu-discover --pci -d 8086:09a7 --json   Intel discovery-table devices, as JSON\n"
      "  pmu-discover --pci --snapshot DIR        a captured or synthetic machine\n"
      "  pmu-discover --pci --pci-dump FILE       an 'lspci -xxxx' dump",
      "pmu-discover"};
  tools::MachineArgs machine_args;
  tools::add_machine_options(app, machine_args);
  bool show_pci = false, json = false, verbose = false;
  std::vector<std::string> slots, ids;
  app.add_flag("--pci", show_pci, "List PCI devices with BARs and capabilities (like lspci -vvv)");
  app.add_flag("--json", json, "Print JSON (schema in docs/json.md) instead of text");
  app.add_flag("-v,--verbose", verbose, "Also print warnings for devices whose walk succeeded");
  app.add_option("-s", slots, "Select devices by slot: [[[[domain]:]bus]:][slot][.[func]]")->type_name("SLOT");
  app.add_option("-d", ids, "Select devices by ID: [vendor]:[device][:class]")->type_name("ID");
  app.set_version_flag("-V,--version", "pmu-discover (pmukit) 0.1.0");

  return tools::run_tool("pmu-discover", app, argc, argv, [&] {
    auto machine = tools::make_machine(machine_args);
    PciFilter filter;
    for (const auto& s : slots) filter.set_slot(s);
    for (const auto& d : ids) filter.set_id(d);
    // The whole bus is scanned (root ports need every bridge); the filter only selects output.
    auto devices = pci::scan(*machine, {&filter});
    if (json) {
      nlohmann::ordered_json out{{"schema", "pmukit.pci/1"}, {"source", machine->describe()},
                                 {"access_method", machine->pci().method()},
                                 {"devices", tools::pci_json(devices)}};
      fmt::print("{}\n", out.dump(2));
    } else {
      tools::print_pci_text(machine->pci(), devices, verbose);
    }
    for (const auto& d : devices)
      for (const auto& w : d.warnings) tools::warn(w);
    return 0;
  });
}
