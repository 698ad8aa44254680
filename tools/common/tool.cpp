// pmukit tools -- shared option handling and error reporting.
#include "common/tool.h"

#include <cstdio>
#include <system_error>

#include <fmt/format.h>

#include "pmukit/util/error.h"

namespace pmukit::tools {

namespace {
const char* g_tool = "pmukit";

struct HelpRequested {};
}  // namespace

const char* tool_name() {
  return g_tool;
}

void warn(const std::string& msg) {
  fmt::print(stderr, "{}: warning: {}\n", g_tool, msg);
}

void add_machine_options(CLI::App& app, MachineArgs& args) {
  app.add_option("--snapshot", args.snapshot,
                 "Read a captured or synthetic machine from DIR instead of this one: every path /X "
                 "becomes DIR/X (sysfs, ACPI tables, dev/mem, dev/cpu/N/msr, BAR resourceN files)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
  app.add_option("--pci-dump", args.pci_dump, "Read PCI config space from an 'lspci -xxxx' dump (libpci dump method)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  app.add_option("-O", args.params, "Set a path parameter, like lspci -O (-O help lists them)")
      ->type_name("NAME=VALUE");
}

std::unique_ptr<Machine> make_machine(const MachineArgs& args) {
  MachineOptions opts;
  if (!args.snapshot.empty()) opts.root = args.snapshot;
  if (!args.pci_dump.empty()) opts.pci_dump = args.pci_dump;
  for (const auto& p : args.params) {
    if (p == "help") {
      fmt::print("Path parameters (defaults are under the machine root):\n");
      for (const auto& info : param_table())
        fmt::print("  {:<14} {:<32} {}\n", info.name, info.default_path, info.help);
      throw HelpRequested{};
    }
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError(fmt::format("-O '{}': expected NAME=VALUE", p));
    opts.overrides[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return std::make_unique<Machine>(std::move(opts));
}

int run_tool(const char* tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  g_tool = tool;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own exit codes (105, 106...) are not what Linux tools use: usage errors are 2.
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    return body();
  } catch (const HelpRequested&) {
    return 0;
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 2;
  } catch (const Error& e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 1;
  } catch (const std::system_error& e) {
    // The reader of our output went away (`| head`): what was being counted is already restored
    // (unwinding ran the destructors); say nothing more, as a tool killed by SIGPIPE would not.
    if (e.code() == std::errc::broken_pipe) return 0;
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 1;
  }
}

}  // namespace pmukit::tools
