// pmukit tools -- shared option handling and error reporting.
#include "common/tool.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include <fmt/format.h>

#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

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
                 "becomes DIR/X (sysfs, ACPI tables, dev/mem, dev/cpu/N/msr, BAR resourceN files), and no "
                 "link or '..' leads out of DIR. DIR = / is the live machine")
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
  opts.live_perf = args.live_perf;
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
  auto machine = std::make_unique<Machine>(std::move(opts));
  if (!args.snapshot.empty() && machine->is_live())
    fmt::print(stderr,
               "{}: note: --snapshot {} is this machine's root: this is the live machine, its files, devices and "
               "registers (as without --snapshot)\n",
               g_tool, args.snapshot);
  return machine;
}

CLI::Validator whole_number_in(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 20 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        auto v = digits ? parse_u64(text) : std::nullopt;
        if (v && *v >= lo && *v <= hi) return "";
        return fmt::format("'{}' is not a whole number from {} to {}", text.substr(0, 40), lo, hi);
      },
      fmt::format("{}..{}", lo, hi));
}

CLI::Validator seconds_in(double max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        // Plain decimal notation only: no "nan", "inf", hex floats or exponents beyond the bound.
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
        bool ok = ec == std::errc() && end == text.data() + text.size() && std::isfinite(v) && v > 0 && v <= max;
        if (ok) return "";
        return fmt::format("'{}' is not a number of seconds in (0, {}]", text.substr(0, 40), max);
      },
      fmt::format("(0, {}]", max));
}

void check_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    int err = errno ? errno : EIO;
    std::clearerr(stdout);
    if (err == EPIPE) throw std::system_error(std::make_error_code(std::errc::broken_pipe));  // `| head`: quiet
    throw Error(fmt::format("standard output: {}: the output is lost", errno_text(err)));
  }
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
    int rc = body();
    check_stdout();
    return rc;
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
