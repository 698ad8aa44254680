// pmu-discover -- finds every uncore PMU unit on a machine (live, snapshot or dump) and prints it.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "cmn_view.h"
#include "common/bundled.h"
#include "common/tool.h"
#include "inventory_view.h"
#include "pci_view.h"
#include "perf_map.h"
#include "pmukit/acpi/apmt.h"
#include "pmukit/discovery/access_report.h"
#include "pmukit/discovery/inventory_json.h"
#include "pmukit/families/registry.h"
#include "pmukit/pci/device.h"
#include "pmukit/pci/device_json.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/snapshot/capture.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"

using namespace pmukit;

namespace {

constexpr const char* kVersion = "pmu-discover (pmukit) 0.1.0";

constexpr const char* kAbout =
    "pmu-discover: find the uncore PMUs of a machine and the PCI devices that lead to them.\n\n"
    "With no mode option it prints the PMU inventory (--dump): every unit, grouped by socket,\n"
    "die and type, with its register addresses and the kernel PMU name perf knows it by.\n\n"
    "Examples:\n"
    "  pmu-discover                             this machine's PMU units\n"
    "  pmu-discover --machine spr-2s            a bundled synthetic machine (--list-machines)\n"
    "  pmu-discover --dump --json               the inventory as JSON (docs/json.md)\n"
    "  pmu-discover --pci -d 8086:09a7          Intel discovery-table devices, like lspci -vvv\n"
    "  pmu-discover --apmt --machine grace-2s   the ACPI APMT, every field decoded\n"
    "  pmu-discover --cmn --machine yitian      Arm CMN mesh: every node, and a picture of the mesh\n"
    "  pmu-discover --cmn --cmn-type ccla       only the CCLA nodes (names as Linux arm-cmn, or 0x105)\n"
    "  pmu-discover --snapshot DIR              a captured or synthetic machine tree\n"
    "  pmu-discover --capture DIR               capture this machine into DIR, for a bug report\n"
    "  pmu-discover --pci --pci-dump FILE       an 'lspci -xxxx' dump";

struct Options {
  tools::MachineArgs machine;
  bool show_pci = false, dump = false, json = false, verbose = false, list_machines = false, show_apmt = false;
  bool show_cmn = false;
  tools::CmnOptions cmn;
  std::string machine_name, fallback, write_machine, capture;
  pci::ScanOptions selection;  // -s, -d
};

void add_options(CLI::App& app, Options& o) {
  tools::add_machine_options(app, o.machine);
  auto* modes = app.add_option_group("mode");
  modes->add_flag("--dump", o.dump, "Print the PMU inventory (the default)");
  modes->add_flag("--pci", o.show_pci, "List PCI devices with BARs and capabilities (like lspci -vvv)");
  modes->add_flag("--list-machines", o.list_machines, "List the bundled synthetic machines");
  modes->add_flag("--apmt", o.show_apmt,
                  "Decode the ACPI APMT: header, checksum, every node field and flag (like fwts)");
  modes->add_flag(
      "--cmn", o.show_cmn,
      "Arm CMN meshes: every node as nodeid=, logid=, type=, (x,y,portid,devid)=, then a picture of the mesh");
  modes->require_option(0, 1);
  app.add_flag("--json", o.json, "Print JSON (schemas in docs/json.md) instead of text");
  app.add_flag("-v,--verbose", o.verbose, "More detail: files tables were read through, fixed counters, PCI warnings");
  app.add_option("--cmn-type", o.cmn.types,
                 "--cmn: only nodes of these types: a name (ccla, HN-F, hnf, rnid...) or a number (0x105)")
      ->type_name("TYPE");
  app.add_option("--cmn-pmu", o.cmn.pmus, "--cmn: only this mesh (arm_cmn_1)")->type_name("NAME");
  app.add_option("--cmn-svg", o.cmn.svg, "Write the CMN mesh picture as SVG to FILE (with or without --cmn)")
      ->type_name("FILE");
  app.add_option("-s", o.selection.slots, "--pci: select devices by slot, [[[[domain]:]bus]:][slot][.[func]]")
      ->type_name("SLOT");
  app.add_option("-d", o.selection.ids, "--pci: select devices by ID, [vendor]:[device][:class]")->type_name("ID");
  app.add_option("--machine", o.machine_name, "Run on a bundled synthetic machine instead of this one")
      ->type_name("NAME")
      ->excludes(app.get_option("--snapshot"));
  app.add_option("--write-machine", o.write_machine,
                 "With --machine: build the bundled machine's tree into DIR (empty or absent) and exit, to use with "
                 "--snapshot DIR or lspci -A linux-sysfs -O sysfs.path=DIR/sys/bus/pci")
      ->type_name("DIR")
      ->needs(app.get_option("--machine"));
  app.add_option("--capture", o.capture,
                 "Capture the machine (this one, or --snapshot/--machine) into DIR (empty or absent): every file "
                 "discovery reads, the register pages it proved and read, and a manifest (docs/snapshot-format.md). "
                 "Attach DIR to a bug report; --snapshot DIR replays it")
      ->type_name("DIR");
  app.add_option("--fallback-machine", o.fallback,
                 "If this machine has no PMU discovery, show bundled machine NAME instead (clearly labelled)")
      ->type_name("NAME");
}

int show_apmt(Machine& machine) {
  auto file = machine.param("acpi.path") / "APMT";
  auto bytes = acpi::read_table(machine, "APMT");
  if (!bytes) throw Error(fmt::format("{}: no APMT on this machine", file.string()));
  auto apmt = acpi::parse_apmt(*bytes, file.string());
  for (const auto& line : acpi::describe(apmt)) fmt::print("{}\n", line);
  for (const auto& w : apmt.all_warnings()) tools::warn(w);
  return 0;
}

int show_pci(Machine& machine, const Options& o) {
  // The whole bus is scanned (root ports need every bridge); the selection only picks the output.
  auto devices = pci::scan(machine, o.selection);
  if (o.json) {
    nlohmann::ordered_json head{
        {"schema", "pmukit.pci/1"}, {"source", machine.describe()}, {"access_method", pci::access_method(machine)}};
    pci::write_devices_json(stdout, head, devices);
  } else {
    tools::print_pci_text(machine, devices, o.verbose);
  }
  for (const auto& d : devices)
    for (const auto& w : d.warnings) tools::warn(w);
  // libpci skips every line of a dump it does not recognise: a file that is not lspci -x
  // output reads as an empty bus, which deserves a word.
  if (pci::no_devices(machine) && machine.options().pci_dump)
    tools::warn(fmt::format("{}: no PCI device in this file (expected lspci -xxx or -xxxx output)",
                            machine.options().pci_dump->string()));
  return 0;
}

void show_inventory(Machine& machine, const discovery::DiscoveryResult& result, const Options& o) {
  auto label = snapshot::synthetic_label(machine);
  std::vector<std::string> why_none;
  if (result.inventory.units.empty()) why_none = discovery::no_access_causes(machine, result);
  if (o.json) {
    nlohmann::ordered_json out{{"schema", "pmukit.inventory/1"},
                               {"source", machine.describe()},
                               {"synthetic", label ? nlohmann::ordered_json(*label) : nlohmann::ordered_json(nullptr)}};
    out.update(discovery::to_json(result.inventory));
    if (result.inventory.units.empty()) out["no_units_because"] = why_none;
    tools::add_perf_mapping(out, perf::map_units(machine, result.inventory));
    fmt::print("{}\n", out.dump(2));
  } else {
    if (label) fmt::print("*** {} ***\n", *label);
    fmt::print("Source: {}\n", o.machine_name.empty() ? machine.describe() : "bundled machine " + o.machine_name);
    tools::print_inventory_text(result, o.verbose, why_none);
    tools::print_perf_mapping(machine, perf::map_units(machine, result.inventory));
  }
  for (const auto& w : result.inventory.warnings) tools::warn(w);
}

// Sends stdout and stderr to /dev/null while it lives: the capture runs the views for what they
// read, not for what they print.
class Silenced {
 public:
  Silenced() {
    std::fflush(stdout);
    std::fflush(stderr);
    int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    for (int fd : {1, 2}) {
      saved_[fd - 1] = ::dup(fd);
      if (null >= 0) ::dup2(null, fd);
    }
    if (null >= 0) ::close(null);
  }
  ~Silenced() {
    std::fflush(stdout);
    std::fflush(stderr);
    for (int fd : {1, 2}) {
      if (saved_[fd - 1] < 0) continue;
      ::dup2(saved_[fd - 1], fd);
      ::close(saved_[fd - 1]);
    }
  }
  Silenced(const Silenced&) = delete;
  Silenced& operator=(const Silenced&) = delete;

 private:
  int saved_[2] = {-1, -1};
};

// Runs every view --snapshot should reproduce (--dump and --pci, text and JSON, --cmn), silenced:
// an error in one is part of what the capture reproduces, not the end of the capture.
// Discovery itself runs once: both formats print the same result.
void run_views_for_capture(Machine& machine, Options o) {
  Silenced quiet;
  std::optional<discovery::DiscoveryResult> result;
  try {
    result = families::discover(machine);
  } catch (const Error&) {
  }
  for (bool json : {false, true}) {
    o.json = json;
    try {
      if (result) show_inventory(machine, *result, o);
    } catch (const Error&) {
    }
    try {
      show_pci(machine, o);
    } catch (const Error&) {
    }
    try {
      tools::show_cmn(machine, o.cmn, !json, json);
    } catch (const Error&) {
    }
  }
}

int capture(Machine& machine, const Options& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(o.capture, ec) && !(fs::is_directory(o.capture, ec) && fs::is_empty(o.capture, ec)))
    throw Error(fmt::format("{}: exists and is not an empty directory; --capture writes a new tree", o.capture));
  snapshot::CaptureRecorder recorder(machine);
  run_views_for_capture(machine, o);
  recorder.stop();
  auto sum = snapshot::write_capture(machine, recorder, o.capture, kVersion);
  fmt::print("Captured {} into {}: {} files, {} links, {} register bytes, {} MSRs.\n", machine.describe(), o.capture,
             sum.files, sum.links, sum.register_bytes, sum.msrs);
  for (const auto& s : sum.skipped) fmt::print("  skipped {}: {}\n", s.path, s.why);
  fmt::print("Replay with: pmu-discover --snapshot {}  (manifest: {}/{})\n", o.capture, o.capture,
             snapshot::kCaptureManifest);
  return 0;
}

int run(Options& o) {
  if (o.list_machines) {
    tools::print_bundled_machines();
    return 0;
  }
  if (!o.write_machine.empty()) {
    families::build_bundled(o.machine_name, o.write_machine);
    return 0;
  }
  std::unique_ptr<tools::BundledSnapshot> bundled;
  if (!o.machine_name.empty()) {
    bundled = std::make_unique<tools::BundledSnapshot>(o.machine_name);
    o.machine.snapshot = bundled->root().string();
  }
  auto machine = tools::make_machine(o.machine);
  if (!o.capture.empty()) return capture(*machine, o);
  if (o.show_apmt) return show_apmt(*machine);
  if (!o.cmn.types.empty() && !o.show_cmn) throw UsageError("--cmn-type selects nodes for --cmn; add --cmn");
  if (!o.cmn.pmus.empty() && !o.show_cmn && o.cmn.svg.empty())
    throw UsageError("--cmn-pmu selects meshes for --cmn or --cmn-svg; add one of them");
  if (o.show_cmn || !o.cmn.svg.empty()) return tools::show_cmn(*machine, o.cmn, o.show_cmn, o.json);
  if (o.show_pci) return show_pci(*machine, o);
  auto result = families::discover(*machine);
  if (result.inventory.units.empty() && !o.fallback.empty()) {
    fmt::print("This machine ({}) has no uncore PMU discovery; showing the bundled synthetic machine '{}' "
               "instead.\n",
               machine->describe(), o.fallback);
    for (const auto& why : discovery::no_access_causes(*machine, result)) fmt::print("  why: {}\n", why);
    fmt::print("\n");
    bundled = std::make_unique<tools::BundledSnapshot>(o.fallback);
    o.machine.snapshot = bundled->root().string();
    machine = tools::make_machine(o.machine);
    result = families::discover(*machine);
  }
  show_inventory(*machine, result, o);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kAbout, "pmu-discover"};
  Options o;
  add_options(app, o);
  app.set_version_flag("-V,--version", kVersion);
  return tools::run_tool("pmu-discover", app, argc, argv, [&] { return run(o); });
}
