// pmu-discover -- finds every uncore PMU unit on a machine (live, snapshot or dump) and prints it.
#include <cstdio>

#include <fmt/format.h>

#include "common/bundled.h"
#include "common/tool.h"
#include "inventory_view.h"
#include "pci_view.h"
#include "perf_map.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/acpi/apmt.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"

using namespace pmukit;

int main(int argc, char** argv) {
  CLI::App app{"pmu-discover: find the uncore PMUs of a machine and the PCI devices that lead to them.\n\n"
               "With no mode option it prints the PMU inventory (--dump): every unit, grouped by socket,\n"
               "die and type, with its register addresses and the kernel PMU name perf knows it by.\n\n"
               "Examples:\n"
               "  pmu-discover                             this machine's PMU units\n"
               "  pmu-discover --machine spr-2s            a bundled synthetic machine (--list-machines)\n"
               "  pmu-discover --dump --json               the inventory as JSON (docs/json.md)\n"
               "  pmu-discover --pci -d 8086:09a7          Intel discovery-table devices, like lspci -vvv\n"
               "  pmu-discover --apmt --machine grace-2s   the ACPI APMT, every field decoded\n"
               "  pmu-discover --snapshot DIR              a captured or synthetic machine tree\n"
               "  pmu-discover --pci --pci-dump FILE       an 'lspci -xxxx' dump",
               "pmu-discover"};
  tools::MachineArgs machine_args;
  tools::add_machine_options(app, machine_args);
  bool show_pci = false, dump = false, json = false, verbose = false, list_machines = false, show_apmt = false;
  std::string machine_name, fallback, write_machine;
  std::vector<std::string> slots, ids;
  auto* modes = app.add_option_group("mode");
  modes->add_flag("--dump", dump, "Print the PMU inventory (the default)");
  modes->add_flag("--pci", show_pci, "List PCI devices with BARs and capabilities (like lspci -vvv)");
  modes->add_flag("--list-machines", list_machines, "List the bundled synthetic machines");
  modes->add_flag("--apmt", show_apmt, "Decode the ACPI APMT: header, checksum, every node field and flag (like fwts)");
  modes->require_option(0, 1);
  app.add_flag("--json", json, "Print JSON (schemas in docs/json.md) instead of text");
  app.add_flag("-v,--verbose", verbose, "More detail: files tables were read through, fixed counters, PCI warnings");
  app.add_option("-s", slots, "--pci: select devices by slot, [[[[domain]:]bus]:][slot][.[func]]")->type_name("SLOT");
  app.add_option("-d", ids, "--pci: select devices by ID, [vendor]:[device][:class]")->type_name("ID");
  app.add_option("--machine", machine_name, "Run on a bundled synthetic machine instead of this one")
      ->type_name("NAME")
      ->excludes(app.get_option("--snapshot"));
  app.add_option("--write-machine", write_machine,
                 "With --machine: build the bundled machine's tree into DIR (empty or absent) and exit, to use with "
                 "--snapshot DIR or lspci -A linux-sysfs -O sysfs.path=DIR/sys/bus/pci")
      ->type_name("DIR")
      ->needs(app.get_option("--machine"));
  app.add_option("--fallback-machine", fallback,
                 "If this machine has no PMU discovery, show bundled machine NAME instead (clearly labelled)")
      ->type_name("NAME");
  app.set_version_flag("-V,--version", "pmu-discover (pmukit) 0.1.0");

  return tools::run_tool("pmu-discover", app, argc, argv, [&] {
    if (list_machines) {
      tools::print_bundled_machines();
      return 0;
    }
    if (!write_machine.empty()) {
      snapshot::build_bundled(machine_name, write_machine);
      return 0;
    }
    std::unique_ptr<tools::BundledSnapshot> bundled;
    if (!machine_name.empty()) {
      bundled = std::make_unique<tools::BundledSnapshot>(machine_name);
      machine_args.snapshot = bundled->root().string();
    }
    auto machine = tools::make_machine(machine_args);
    if (show_apmt) {
      auto file = machine->param("acpi.path") / "APMT";
      auto bytes = acpi::read_table(*machine, "APMT");
      if (!bytes) throw Error(fmt::format("{}: no APMT on this machine", file.string()));
      auto apmt = acpi::parse_apmt(*bytes, file.string());
      for (const auto& line : acpi::describe(apmt)) fmt::print("{}\n", line);
      for (const auto& w : apmt.all_warnings()) tools::warn(w);
      return 0;
    }
    if (show_pci) {
      PciFilter filter;
      for (const auto& s : slots) filter.set_slot(s);
      for (const auto& d : ids) filter.set_id(d);
      // The whole bus is scanned (root ports need every bridge); the filter only selects output.
      auto devices = pci::scan(*machine, {&filter});
      if (json) {
        nlohmann::ordered_json out{{"schema", "pmukit.pci/1"},
                                   {"source", machine->describe()},
                                   {"access_method", machine->pci().method()},
                                   {"devices", tools::pci_json(devices)}};
        fmt::print("{}\n", out.dump(2));
      } else {
        tools::print_pci_text(machine->pci(), devices, verbose);
      }
      for (const auto& d : devices)
        for (const auto& w : d.warnings) tools::warn(w);
      // libpci skips every line of a dump it does not recognise: a file that is not lspci -x
      // output reads as an empty bus, which deserves a word.
      if (machine->pci().devices().empty() && machine->options().pci_dump)
        tools::warn(fmt::format("{}: no PCI device in this file (expected lspci -xxx or -xxxx output)",
                                machine->options().pci_dump->string()));
      return 0;
    }
    auto result = discovery::discover(*machine);
    if (result.inventory.units.empty() && !fallback.empty()) {
      fmt::print("This machine ({}) has no uncore PMU discovery; showing the bundled synthetic machine '{}' "
                 "instead.\n\n",
                 machine->describe(), fallback);
      bundled = std::make_unique<tools::BundledSnapshot>(fallback);
      machine_args.snapshot = bundled->root().string();
      machine = tools::make_machine(machine_args);
      result = discovery::discover(*machine);
    }
    auto label = snapshot::synthetic_label(*machine);
    if (json) {
      nlohmann::ordered_json out{
          {"schema", "pmukit.inventory/1"},
          {"source", machine->describe()},
          {"synthetic", label ? nlohmann::ordered_json(*label) : nlohmann::ordered_json(nullptr)}};
      out.update(discovery::to_json(result.inventory));
      tools::add_perf_mapping(out, tools::map_to_perf(*machine, result.inventory));
      fmt::print("{}\n", out.dump(2));
    } else {
      if (label) fmt::print("*** {} ***\n", *label);
      fmt::print("Source: {}\n", machine_name.empty() ? machine->describe() : "bundled machine " + machine_name);
      tools::print_inventory_text(result, verbose);
      tools::print_perf_mapping(*machine, tools::map_to_perf(*machine, result.inventory));
    }
    for (const auto& w : result.inventory.warnings) tools::warn(w);
    return 0;
  });
}
